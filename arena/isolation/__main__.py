"""`python -m arena.isolation SPEC`: the built-in host for the Python bot class SPEC."""

import sys

from arena.isolation.host import main

sys.exit(main())
