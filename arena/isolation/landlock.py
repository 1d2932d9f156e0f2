"""Landlock, where the kernel offers it: a process restricts itself, and every process it starts, for good.

The built-in host calls `restrict()` in the sandbox before it loads the bot's code (arena/isolation/host.py). The
bot may then write only under the folders it is given (its /tmp and /dev), read and run what it can see, make
no TCP connection and bind no TCP port, and signal or reach through an abstract UNIX socket no process outside
its own. Inside the sandbox's namespaces this takes nothing more away while they hold: it is a second wall, kept
by another part of the kernel, should one of them fail.

Each right is asked for only where the kernel's Landlock ABI knows it (TCP from ABI 4, signals and abstract
sockets from ABI 6), and nothing is done where there is no Landlock at all (ABI 0).
"""

from __future__ import annotations

import ctypes
import os

ENV = "ARENA_LANDLOCK"
"""Set (to 1) in the environment of the built-in host in a sandbox: the host restricts itself before the bot loads."""
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
"""The system call numbers, the same on every architecture."""
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
"""The file rights a reader needs (LANDLOCK_ACCESS_FS_*): run, and read files and folders (write for /dev/null)."""
_FS_RIGHTS = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
"""Every file right the kernel knows, by the ABI that added the last of them (refer 2, truncate 3, ioctl 5)."""
_NET_TCP = 1 | 2
"""Bind and connect on TCP (ABI 4)."""
_SCOPES = 1 | 2
"""Abstract UNIX sockets and signals (ABI 6)."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def abi() -> int:
    """The kernel's Landlock ABI version: 0 where it has none (not built in, or not enabled at boot)."""
    version = _libc.syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    return max(int(version), 0)


def restrict(writable: tuple[str, ...] = ("/tmp", "/dev")) -> int:
    """Restricts this process and its children as the module says; returns the ABI applied (0: none). Raises
    OSError when the kernel offers Landlock but refuses the rules."""
    version = abi()
    if version == 0:
        return 0
    rights = _FS_RIGHTS[max(v for v in _FS_RIGHTS if v <= version)]
    attr = _RulesetAttr(rights, _NET_TCP if version >= 4 else 0, _SCOPES if version >= 6 else 0)
    # a kernel that knows a shorter struct takes the whole one when the fields it does not know are 0
    ruleset = _check(_libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.sizeof(attr), 0))
    try:
        for path, allowed in [("/", EXECUTE | READ_FILE | READ_DIR), *((p, rights) for p in writable)]:
            folder = os.open(path, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                rule = _PathBeneathAttr(allowed, folder)
                _check(_libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0))
            finally:
                os.close(folder)
        _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))  # the kernel's condition for an unprivileged caller
        _check(_libc.syscall(_RESTRICT_SELF, ruleset, 0))
    finally:
        os.close(ruleset)
    return version


def _check(result: int) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"landlock: {os.strerror(code)}")
    return result
