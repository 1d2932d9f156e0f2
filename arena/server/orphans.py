"""The server's children die with it: a server SIGKILLed must not leave a process playing the league (a second
writer beside the next server) or computing for nobody."""

from __future__ import annotations

import os
import signal
import sys


def die_with(parent: int) -> None:
    """Asks the kernel to SIGKILL this process when its parent dies (Linux: PR_SET_PDEATHSIG), and leaves at once
    if the parent has died already."""
    if sys.platform == "linux":
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)
