"""Zoo: tries to get out of its process, by the attacks named in `how` (comma-separated), then plays a legal move.

An attack that works raises `RuntimeError("escaped: <attack>: <what it got>")`, so a breakout is the bot's
`crash` with that fault, and what it read (a planted secret) lands in the results where a test finds it.
An attack that is refused is shrugged off: the bot plays on. The attacks, made at the first move of each
process (or of each game, for `stdout`):

- `secret`: reads the file `secret` (planted by the test outside the bot's folder);
- `source`: reads the files `sources` (other bots' source);
- `write`: creates a file in each folder of `folders` (the run directory, the home directory);
- `connect`: connects to 127.0.0.1:`port` (a server the test runs);
- `proc`: signals (signal 0) its parent, and lists /proc for processes other than itself and pid 1;
- `fork`: forks until refused (escaped past `FORKS`);
- `memory`: allocates 8 GB;
- `big_file`: writes 1 GB to a file in its temporary folder;
- `orphan`: leaves a process behind, in a session of its own, that sleeps for a minute (`marker` in its arguments);
- `stdout`: closes its standard output;
- `unshare`: makes a new user namespace (as root of it, it could mount, and reach kernel code that takes root);
- `mount`: mounts a tmpfs on a folder of its own, as it is, then in a new user and mount namespace;
- `ptrace`: attaches with ptrace to a child of its own (ptrace reads and steers a process).

The last three go through ctypes to the C library; each must be refused with EPERM (the sandbox's seccomp filter):
a call that fails otherwise is the bot's crash too (`refused, but not by the filter: ...`).
"""

import ctypes
import errno
import os
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from arena.bots import Bot

FORKS = 1000
"""Forks that count as a breakout: far above any sandbox's process limit, and small enough to end soon."""


def escaped(attack: str, evidence: object) -> RuntimeError:
    return RuntimeError(f"escaped: {attack}: {evidence}")


def attack_secret(bot):
    try:
        text = Path(bot.params["secret"]).read_text()
    except OSError:
        return
    raise escaped("secret", text)


def attack_source(bot):
    for path in bot.params["sources"]:
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        raise escaped("source", f"{path}: {len(text)} characters")


def attack_write(bot):
    for folder in bot.params["folders"]:
        target = Path(folder) / f"escaped-{os.getpid()}.txt"
        try:
            target.write_text("written by a bot")
        except OSError:
            continue
        raise escaped("write", target)


def attack_connect(bot):
    try:
        with socket.create_connection(("127.0.0.1", bot.params["port"]), timeout=1.0) as connection:
            connection.sendall(b"hello from a bot\n")
    except OSError:
        return
    raise escaped("connect", f"127.0.0.1:{bot.params['port']}")


def attack_proc(bot):
    parent = os.getppid()
    try:  # signal 0 asks only whether a signal would be delivered
        os.kill(parent, 0)
        if parent != 1:  # in a sandbox, its parent is the sandbox's own init, pid 1
            raise escaped("proc", f"can signal its parent {parent}")
    except OSError:
        pass
    others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
    if others:
        raise escaped("proc", f"sees {len(others)} other processes")


def attack_fork(bot):
    children = []
    try:
        while len(children) < FORKS:
            pid = os.fork()
            if pid == 0:
                signal.pause()
                os._exit(0)
            children.append(pid)
    except OSError:
        pass
    finally:
        for pid in children:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    if len(children) >= FORKS:
        raise escaped("fork", f"{len(children)} processes")


def attack_memory(bot):
    try:
        block = bytearray(8 << 30)
    except MemoryError:
        return
    del block
    raise escaped("memory", "8 GB")


def attack_big_file(bot):
    chunk = b"x" * (1 << 20)
    written = 0
    try:
        with tempfile.TemporaryFile() as file:
            while written < 1 << 30:
                written += file.write(chunk)
                file.flush()
    except OSError:
        return
    raise escaped("big_file", f"{written >> 20} MiB")


def attack_orphan(bot):
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", bot.params["marker"]],
                     start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)


def attack_stdout(bot):
    os.close(1)


CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
PTRACE_ATTACH = 16
_libc = ctypes.CDLL(None, use_errno=True)


def refused(attack: str, result: int) -> bool:
    """True when the call failed with EPERM; raises when it worked (escaped) or failed another way."""
    if result == 0:
        return False
    code = ctypes.get_errno()
    if code != errno.EPERM:
        raise RuntimeError(f"refused, but not by the filter: {attack}: {errno.errorcode.get(code, code)}")
    return True


def attack_unshare(bot):
    if not refused("unshare", _libc.unshare(CLONE_NEWUSER)):
        raise escaped("unshare", f"a user namespace of its own, {os.readlink('/proc/self/ns/user')}")


def attack_mount(bot):
    folder = tempfile.mkdtemp().encode()
    if refused("mount", _libc.mount(b"none", folder, b"tmpfs", 0, None)):
        if refused("mount", _libc.unshare(CLONE_NEWUSER | CLONE_NEWNS)):
            return
        Path("/proc/self/setgroups").write_text("deny")  # the way to mount as root of the new namespace
        if refused("mount", _libc.mount(b"none", folder, b"tmpfs", 0, None)):
            return
    _libc.umount2(folder, 0)
    raise escaped("mount", f"a tmpfs on {folder.decode()}")


def attack_ptrace(bot):
    child = os.fork()
    if child == 0:
        signal.pause()
        os._exit(0)
    _libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    try:
        if not refused("ptrace", _libc.ptrace(PTRACE_ATTACH, child, None, None)):
            raise escaped("ptrace", f"attached to its child {child}")
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


ATTACKS = {name.removeprefix("attack_"): value for name, value in globals().items() if name.startswith("attack_")}
ONCE_PER_GAME = {"stdout"}


class EscapesBot(Bot):
    name = "zoo-escapes"
    defaults = {"how": "secret", "secret": "", "sources": [], "folders": [], "port": 0, "marker": ""}
    attacked: set = set()
    """The attacks this process has made (most once per process: they cost time)."""

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        self.started = False

    def act(self, observation):
        if not self.started:
            self.started = True
            for attack in self.params["how"].split(","):
                if attack in ONCE_PER_GAME or attack not in EscapesBot.attacked:
                    EscapesBot.attacked.add(attack)
                    ATTACKS[attack](self)
        return self.rng.choice(observation.legal_moves)
