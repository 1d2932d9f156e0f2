"""`python -m arena.cli`: the same commands as the `arena` script."""

from arena.cli.app import main

main()
