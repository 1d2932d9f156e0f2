"""The sandbox's seccomp filter (arena/isolation/seccomp.py): inside the sandbox the system calls a card bot never needs
are refused with EPERM, while threads, forks and programs work; without the filter the same attacks of the
zoo (tests/zoo/escapes.py) get through, so the filter is what stops them. The attackers in real tournaments are
in tests/test_sandbox.py (`caller` of the zoo)."""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest
from test_sandbox import CAT, ESCAPES, LIMIT, needs_sandbox

from arena.bots import load_bot_class
from arena.isolation import close_all, process_bot_class, python_command, sandbox, seccomp
from arena.tournament import referee

ROOT = Path(__file__).resolve().parent.parent

CALLS = r'''
import ctypes, errno, json, os, signal, subprocess, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
numbers = json.loads(sys.argv[1])
child = os.fork()
if child == 0:
    signal.pause()
    os._exit(0)
ARGS = {  # harmless arguments: where a call works, it changes nothing outside the sandbox
    "ptrace": (16, child, 0, 0),                       # PTRACE_ATTACH to its own child
    "clone": (0x10000000 | signal.SIGCHLD, 0, 0, 0, 0),  # a child in a new user namespace, which exits at once
    "mount": (b"none", b"/tmp", b"tmpfs", 0, 0),
    "reboot": (0, 0, 0, 0),                            # bad magic numbers: EINVAL where it is not refused first
    "socket": (40, 1, 0),                              # AF_VSOCK, SOCK_STREAM: to the hypervisor's host
}
answers = {}
for name, number in sorted(numbers.items(), key=lambda item: item[0] == "unshare"):  # last: it changes the process
    result = libc.syscall(number, *ARGS.get(name, (0x10000000, 0, 0, 0, 0)))
    if result == 0 and name == "clone":
        os._exit(0)  # the child
    answers[name] = "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]
os.kill(child, signal.SIGKILL)
os.waitpid(child, 0)
thread = threading.Thread(target=lambda: None)
thread.start()
thread.join()
answers["thread, fork, program"] = "ok" if subprocess.run(["true"]).returncode == 0 else "failed"
answers["Seccomp"] = [l.split()[1] for l in open("/proc/self/status") if l.startswith("Seccomp:")][0]
print(json.dumps(answers))
'''
"""Makes each system call named in its argument (name -> number) with harmless arguments and prints its errno."""

TRIED = ["unshare", "setns", "clone", "clone3", "mount", "umount2", "pivot_root", "chroot", "ptrace", "bpf",
         "keyctl", "add_key", "request_key", "perf_event_open", "init_module", "finit_module", "delete_module",
         "kexec_load", "reboot", "swapon", "swapoff", "process_vm_readv", "userfaultfd", "open_by_handle_at",
         "io_uring_setup", "fsopen", "pidfd_getfd", "fanotify_init", "socket"]


def run_in_sandbox(monkeypatch, with_filter: bool, command: list[str]) -> subprocess.CompletedProcess:
    """`command` run in a new sandbox, with or without the filter."""
    monkeypatch.setattr(sandbox, "SECCOMP", with_filter)
    seccomp_fd = sandbox.filter_fd()
    try:
        line = sandbox.wrap(command, None, seccomp_fd)
        return subprocess.run(line, capture_output=True, text=True, timeout=60,
                              pass_fds=() if seccomp_fd is None else (seccomp_fd,))
    finally:
        if seccomp_fd is not None:
            os.close(seccomp_fd)


def in_sandbox(monkeypatch, with_filter: bool) -> dict[str, str]:
    """The answers of CALLS run in a sandbox with or without the filter."""
    import pyseccomp

    numbers = {name: pyseccomp.resolve_syscall(pyseccomp.system_arch(), name) for name in TRIED}
    done = run_in_sandbox(monkeypatch, with_filter, [sys.executable, "-c", CALLS, json.dumps(numbers)])
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@needs_sandbox
def test_in_the_sandbox_the_calls_a_card_bot_never_needs_are_refused(monkeypatch):
    answers = in_sandbox(monkeypatch, True)
    expected = {name: "EPERM" for name in TRIED} | {"clone3": "ENOSYS"}  # ENOSYS: the C library falls back to clone
    assert answers == expected | {"thread, fork, program": "ok", "Seccomp": "2"}
    assert set(TRIED) - {"clone3"} <= set(seccomp.BLOCKED) | {"clone", "socket"}


@needs_sandbox
def test_without_the_filter_the_sandbox_lets_a_bot_make_namespaces_and_trace(monkeypatch):
    """What the filter takes away: the same sandbox without it answers these calls."""
    answers = in_sandbox(monkeypatch, False)
    assert answers["Seccomp"] == "0"
    assert {name: answers[name] for name in ("unshare", "clone", "ptrace")} == dict.fromkeys(("unshare", "clone",
                                                                                                "ptrace"), "ok")
    assert answers["reboot"] == "EINVAL" or answers["reboot"] == "EPERM"  # refused by the kernel's own checks


@needs_sandbox
@pytest.mark.parametrize("attack", ["unshare", "mount", "ptrace"])
def test_without_the_filter_the_zoos_system_call_attacks_get_through(attack, monkeypatch):
    """The zoo's `caller` attacks are no straw man: in the sandbox without the filter (and without Landlock, which
    refuses mounts and writes to /proc as well) each one escapes, its fault says what it got; with the filter,
    tests/test_sandbox.py's zoo shows each refused."""
    monkeypatch.setattr(sandbox, "SECCOMP", False)
    monkeypatch.setattr(sandbox, "LANDLOCK", False)
    params = {"how": attack, "marker": f"no-filter-{attack}"}  # its own params: a process of its own
    bot = process_bot_class(python_command(ESCAPES), params=params, move_time_limit=LIMIT, sandboxed=True)(**params)
    try:
        played = referee.play(CAT, CAT.Rules(), [bot, load_bot_class("random")()], 1, move_time_limit=LIMIT)
    finally:
        close_all()
    assert f"RuntimeError: escaped: {attack}: " in played.fault, played.fault


def test_where_no_filter_can_be_built_the_sandbox_is_refused_with_one_line():
    """Without pyseccomp (or the libseccomp it loads) the sandbox is refused, never made without the filter."""
    script = ("import sys\nsys.modules['pyseccomp'] = None\nfrom arena.isolation import sandbox\n"
              "try:\n    sandbox.check()\n"
              "except sandbox.SandboxUnavailable as error:\n    print(error)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('isolation = "sandbox": no seccomp filter can be built (ModuleNotFoundError: ')
    assert "apt-get install libseccomp2" in done.stdout and done.stdout.count("\n") == 1


@needs_sandbox
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the x32 ABI is x86-64's")
def test_a_call_through_another_abi_kills_the_bot(monkeypatch):
    """The filter checks the ABI a call comes through: an x32 call (number + 0x40000000), which the filter's
    x86-64 numbers would not match, kills the process (SIGSYS) rather than pass. Without the filter the kernel
    answers it itself (ENOSYS on kernels built without x32, as here)."""
    script = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
              "print(libc.syscall(0x40000000 | 272, 0x10000000), os.strerror(ctypes.get_errno()))\n")
    statuses = {with_filter: run_in_sandbox(monkeypatch, with_filter, [sys.executable, "-c", script])
                for with_filter in (False, True)}
    assert statuses[False].returncode == 0 and statuses[False].stdout.startswith("-1 ")
    assert statuses[True].returncode == 128 + 31 and statuses[True].stdout == ""  # bwrap: 128 + SIGSYS
