"""The seccomp filter of the sandbox: the system calls a card bot never needs, refused with EPERM.

bwrap loads the filter (`--seccomp FD`) into the bot's process just before it runs the bot's command, so bwrap
itself can still make the namespaces, and nothing inside can drop the filter: every child inherits it.

The list is anchored on Docker's default profile (moby's profiles/seccomp/default.json): the calls it refuses
a process without capabilities, all but `personality` (Docker allows a few of its values, and a bot changing its
own execution domain reaches nothing) and the calls newer than the profile, which recent C libraries use
(`fchmodat2`, `futex_wait` and the like). Docker's is an allow list; this is a deny list (default ALLOW), so a
call the kernel adds later is allowed until it is named here. As Docker does, `clone3` answers ENOSYS (its flags
are in memory, where a filter cannot look; C libraries then fall back to `clone`), `clone` is refused when its
flags ask for a new namespace, and `socket` for AF_VSOCK (which no network namespace encloses: it reaches the
hypervisor's host). Beyond Docker's refusals, it refuses `ptrace`, `process_vm_readv`, `process_vm_writev`,
io_uring, `name_to_handle_at` and `clock_adjtime`.

The filter is built once per process with libseccomp (through pyseccomp, a dependency of arena on Linux):
`bpf()` is its compiled program, `filter_fd()` a fresh open file holding it for one bwrap.
"""

from __future__ import annotations

import errno
import functools
import os

from arena.errors import ArenaError

MODULES = ("init_module", "finit_module", "delete_module", "create_module", "query_module", "get_kernel_syms")
"""Loading and unloading kernel modules."""
NAMESPACES = ("unshare", "setns")
"""New namespaces (user namespaces among them) and joining others."""
MOUNTS = ("mount", "umount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount", "fspick",
          "move_mount", "open_tree", "mount_setattr")
"""Changing the filesystem's shape: the sandbox's view is made by bwrap, once."""
DEBUGGING = ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise",
             "perf_event_open", "bpf", "userfaultfd", "lookup_dcookie", "fanotify_init")
"""Reading or steering other processes, and the kernel's tracing and BPF machinery."""
KEYS = ("keyctl", "add_key", "request_key")
"""The kernel's key store (not namespaced)."""
MACHINE = ("reboot", "kexec_load", "kexec_file_load", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog",
           "vhangup", "settimeofday", "stime", "clock_settime", "clock_adjtime", "sethostname", "setdomainname",
           "ioperm", "iopl", "vm86", "vm86old", "nfsservctl", "_sysctl", "sysfs", "ustat", "uselib")
"""The machine's own state: power, swap, clock, accounting, quotas, the kernel log, I/O ports, obsolete calls."""
HANDLES = ("open_by_handle_at", "name_to_handle_at")
"""Opening files by handle, which goes around the sandbox's view of the filesystem."""
MEMORY_POLICY = ("mbind", "set_mempolicy", "get_mempolicy", "set_mempolicy_home_node", "move_pages", "migrate_pages")
"""NUMA placement of memory (Docker grants it with CAP_SYS_NICE only)."""
IO_URING = ("io_uring_setup", "io_uring_enter", "io_uring_register")
"""io_uring, whose requests run beside the system calls that seccomp sees."""
BLOCKED = MODULES + NAMESPACES + MOUNTS + DEBUGGING + KEYS + MACHINE + HANDLES + MEMORY_POLICY + IO_URING
"""Every system call the filter refuses with EPERM (names the machine's architecture lacks are left out by
libseccomp)."""

CLONE_NEW = {"CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
             "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
             "CLONE_NEWNET": 0x40000000}
"""The flags of `clone` that make a new namespace: any of them refuses the call (Docker's mask 0x7E020000)."""
AF_VSOCK = 40
"""The address family of virtual machine sockets, which `socket` is refused."""


class SeccompUnavailable(ArenaError):
    """The filter cannot be built here (no libseccomp): one line saying why and how to allow it."""


@functools.cache
def bpf() -> bytes:
    """The filter's compiled BPF program for this machine's architecture (built once per process)."""
    try:
        import pyseccomp as seccomp

        rules = seccomp.SyscallFilter(seccomp.ALLOW)
    except Exception as error:  # the module, or the libseccomp.so.2 it loads, is missing
        raise SeccompUnavailable(f"no seccomp filter can be built ({type(error).__name__}: {error}); install "
                                 "libseccomp (apt-get install libseccomp2) and pyseccomp") from None
    try:  # a binary tree of the calls rather than a list: the calls a bot makes most (read, write) come last
        rules.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
    except Exception:  # libseccomp before 2.5 has the list only
        pass
    refuse = seccomp.ERRNO(errno.EPERM)
    for name in BLOCKED:
        rules.add_rule(refuse, name)
    for flag in CLONE_NEW.values():  # one rule per flag: a rule's comparisons all hold together, never either
        rules.add_rule(refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.add_rule(refuse, "socket", seccomp.Arg(0, seccomp.EQ, AF_VSOCK))
    file = os.memfd_create("arena-seccomp")
    try:
        with os.fdopen(os.dup(file), "wb") as out:
            rules.export_bpf(out)
        os.lseek(file, 0, os.SEEK_SET)
        return os.read(file, 1 << 20)
    finally:
        os.close(file)


def filter_fd() -> int:
    """A new open file holding `bpf()`, read from its start, for one bwrap's `--seccomp`: the caller closes it.
    Raises SeccompUnavailable."""
    program = bpf()
    file = os.memfd_create("arena-seccomp")
    os.write(file, program)
    os.lseek(file, 0, os.SEEK_SET)
    return file
