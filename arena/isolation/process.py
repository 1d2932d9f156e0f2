"""The arena side of a process bot: one running bot process (`BotProcess`), the processes kept across games,
and the bot class that stands for a process (`process_bot_class`)."""

from __future__ import annotations

import atexit
import json
import math
import os
import random
import select
import signal
import subprocess
import time
import weakref
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, ClassVar

from arena.bots import Bot, host_command, is_host
from arena.config.models import DEFAULT_MEMORY_MB
from arena.games import get_game
from arena.isolation import sandbox
from arena.isolation.clock import WALL_BACKSTOP, MoveTimeout, note_move, setup_wall
from arena.isolation.limits import Allowance, child_setup, cpu_used, resource_module, stderr_tail_file
from arena.isolation.protocol import (
    MAX_LINE,
    PROTOCOL,
    BadAnswer,
    BotProcessError,
    NoAnswer,
    ProtocolError,
    SetupTimeout,
    decode_answer,
    encode_json,
    error_text,
    message_line,
    move_from_answer,
    pack_rng_state,
    snippet,
)
from arena.isolation.stderr import StderrPipe

HELLO_TIMEOUT = 30.0
"""Seconds for a new process to start: the built-in host to say it is ready, a command bot to answer hello
(an interpreter starting on a loaded machine)."""
RESET_TIMEOUT = 10.0
"""Seconds of CPU time for an answer to hello (the built-in host) or reset when no setup time limit is given."""


class BotProcess:
    """A running bot: its pipes, a line buffer, and whether it still serves games."""

    def __init__(self, command: Sequence[str], memory_mb: int | None, cpu_seconds: float | None,
                 env: dict[str, str] | None = None, sandboxed: bool = False, folder: str | None = None) -> None:
        self.command, self.cpu_seconds, self.sandboxed = tuple(command), cpu_seconds, sandboxed
        line, keep = self.command, ()
        if sandboxed:  # bwrap runs the command; inside, the environment is the sandbox's own plus the host's path
            try:
                line, keep = sandbox.prepare(self.command, env and {"PYTHONPATH": env["PYTHONPATH"]}, folder)
            except sandbox.SandboxUnavailable as error:
                raise BotProcessError(str(error)) from None
        self.stderr = StderrPipe(stderr_tail_file(self.command))  # read whenever we wait on the bot (see stderr.py)
        try:
            self.popen = subprocess.Popen(
                line, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr.child_end, bufsize=0,
                close_fds=True, start_new_session=True, env=env,  # own session: its signals never reach us
                pass_fds=keep, cwd=None if sandboxed else folder,  # in the sandbox bwrap changes into it
                preexec_fn=child_setup(memory_mb, cpu_seconds, os.getpid()))
        except (OSError, ValueError, subprocess.SubprocessError) as error:
            self.stderr.close()
            raise BotProcessError(f"cannot start {snippet(' '.join(self.command), 60)}: {error}") from None
        finally:
            self.stderr.started()
            for fd in keep:  # the seccomp filter's file: bwrap holds it now
                os.close(fd)
        self.pid, self.creator = self.popen.pid, os.getpid()
        self._bot_pid: int | None = None if sandboxed else self.pid
        self.fresh = True
        """True until its first game starts."""
        self.stdin, self.stdout = self.popen.stdin.fileno(), self.popen.stdout.fileno()
        os.set_blocking(self.stdin, False)  # a bot that stops reading must not block us past the deadline
        self.readable, self.writable = select.poll(), select.poll()
        self.readable.register(self.stdout, select.POLLIN)
        self.writable.register(self.stdin, select.POLLOUT)
        self.stderr.watch(self.readable, self.writable)
        self.buffer = bytearray()
        self.broken: str | None = None
        """Why the process may serve no more games (None while it can)."""
        self.exited = False
        """True once it is known to have exited (or been killed) by itself."""
        self.owner: weakref.ref | None = None
        """The bot instance playing through this process; free when dead or None."""
        self.hello: dict | None = None
        running_processes.append(self)
        _register_cleanup()

    def exchange(self, data: bytes, allowance: Allowance) -> dict:
        """Sends one message line and returns the answer; raises BotProcessError, ProtocolError or NoAnswer."""
        if self.buffer:
            raise ProtocolError(f"output before the question: {snippet(bytes(self.buffer))}")
        self._write(data, allowance)
        return decode_answer(self._read_line(allowance))

    def _write(self, data: bytes, allowance: Allowance) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.stdin, view):]
            except BlockingIOError:
                self._wait(self.writable, allowance)
            except OSError:  # EPIPE: it closed its input or exited
                raise BotProcessError(self.gone()) from None

    def _read_line(self, allowance: Allowance) -> bytes:
        buffer = self.buffer
        while True:
            end = buffer.find(b"\n")
            if end >= 0:
                line = bytes(buffer[:end])
                del buffer[:end + 1]
                return line
            if len(buffer) > MAX_LINE:
                raise ProtocolError(f"a line longer than {MAX_LINE} bytes")
            self._wait(self.readable, allowance)
            chunk = os.read(self.stdout, 65536)
            if not chunk:
                raise BotProcessError(self.gone())
            buffer += chunk

    def _wait(self, poller: select.poll, allowance: Allowance) -> None:
        while True:
            ready = [fd for fd, _ in poller.poll(allowance.wait_ms())]
            if self.stderr.fd in ready:
                ready.remove(self.stderr.fd)
                self.stderr.read()
            if ready:
                return

    def gone(self) -> str:
        """Why the process stopped talking (it closed its pipes, exited or was killed); marks it broken."""
        try:
            code = self.popen.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            self.kill("closed its pipes")
            return "bot process closed its pipes"
        self.exited = True
        if self.sandboxed and code > 128:  # bwrap exits with 128 + the signal that killed the bot
            code = 128 - code
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            why = " (CPU limit)" if -code == signal.SIGXCPU else ""
            text = f"bot process killed by {name}{why}"
        else:
            text = f"bot process exited with status {code}"
        self.broken = self.broken or text
        return text

    def kill(self, why: str) -> None:
        """Marks the process broken and kills it with its process group (reaped later: this may run inside
        a signal-interrupted move, so it does as little as possible)."""
        self.broken = self.broken or why
        if self.popen.returncode is None:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except OSError:
                pass

    def close(self) -> None:
        """Kills the process if it runs, reaps it and closes its pipes."""
        self.kill("closed")
        try:
            self.popen.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            pass
        for pipe in (self.popen.stdin, self.popen.stdout):
            try:
                pipe.close()
            except OSError:
                pass
        self.stderr.close()
        if self in running_processes:
            running_processes.remove(self)

    def request(self, message: dict, cpu: float | None, wall: float) -> dict:
        """Sends a hello or reset and returns the answer (`cpu` seconds of the process's CPU time, None: not counted;
        `wall` of wall time); anything amiss kills it and raises BotProcessError (SetupTimeout when late)."""
        what = message["type"]
        try:
            answer = self.exchange(message_line(message), Allowance(self.bot_pid(), cpu, wall))
        except NoAnswer as late:
            self.kill(f"no answer to {what}")
            within = f"{wall:g}s of wall time" if late.wall and cpu is not None else f"{cpu or wall:g}s"
            raise SetupTimeout(f"no answer to {what} within {within}", late.wall) from None
        except ProtocolError as error:
            self.kill(f"bad answer to {what}")
            raise BotProcessError(f"bad answer to {what}: {error}") from None
        except BaseException:
            self.kill(f"failed in {what}")
            raise
        if "error" in answer:
            self.kill(f"refused {what}")
            raise BotProcessError(error_text(answer["error"]))
        return answer

    def handshake(self, params: dict, setup_time_limit: float | None = None, wall_backstop=WALL_BACKSTOP) -> dict:
        """Says hello with the bot's params; returns its answer ({"name", "games"}) or raises BotProcessError
        (SetupTimeout when late). The built-in host says first that it is ready: its start-up is arena's, and
        only what follows (loading and building the bot) is timed by the setup time limit. A process that exits
        meanwhile is explained by the last lines of its stderr, added to the error."""
        try:
            return self._handshake(params, setup_time_limit, wall_backstop)
        except BotProcessError as error:
            words = self.stderr.last_words() if self.exited else ""
            if words:
                raise BotProcessError(f"{error}: {words}") from None
            raise

    def _handshake(self, params: dict, setup_time_limit: float | None, wall_backstop: float) -> dict:
        if is_host(self.command):
            try:
                ready = decode_answer(self._read_line(Allowance(None, None, HELLO_TIMEOUT)))
            except (NoAnswer, ProtocolError):
                ready = None
            if ready != {"ready": True}:
                self.kill("did not start")
                raise BotProcessError(f"the bot host did not start within {HELLO_TIMEOUT:g}s")
            wall = setup_wall(cpu := RESET_TIMEOUT if setup_time_limit is None else setup_time_limit, wall_backstop)
        else:  # a command's start-up is in its hello: wall time only
            cpu, wall = None, HELLO_TIMEOUT
        answer = self.request({"type": "hello", "protocol": PROTOCOL, "params": params}, cpu, wall)
        games = answer.get("games")
        if answer.get("protocol", PROTOCOL) != PROTOCOL:
            problem = f"speaks protocol {snippet(answer.get('protocol'))}, not {PROTOCOL}"
        elif not isinstance(answer.get("name", ""), str):
            problem = f"name must be a string, not {snippet(answer.get('name'))}"
        elif games is not None and not (isinstance(games, list) and all(isinstance(g, str) for g in games)):
            problem = f"games must be an array of game ids or null, not {snippet(games)}"
        else:
            self.hello = answer
            return answer
        self.kill("bad hello")
        raise BotProcessError(f"bad answer to hello: {problem}")

    def limit_cpu(self) -> None:
        """Gives the process `cpu_seconds` more CPU time from now (the limit is per game, not per life).

        A sandboxed bot whose limit cannot be raised from here (root without CAP_SYS_RESOURCE, for a bot under
        a uid of its own) plays each game in a fresh process, within the limit that preexec set."""
        if not self.cpu_seconds or not hasattr(resource_module(), "prlimit"):
            return  # elsewhere RLIMIT_CPU stays what preexec set: a limit over the process's life
        resource = resource_module()
        pid = self.bot_pid()
        used = None if pid is None else cpu_used(pid)
        try:
            hard = None if used is None else resource.prlimit(pid, resource.RLIMIT_CPU)[1]
        except OSError:
            hard = None
        if hard is None:
            if self.fresh or not self.sandboxed:
                return
            raise BotProcessError("CPU limit of the process cannot be raised")  # the caller starts a fresh one
        soft = math.ceil(used + self.cpu_seconds)
        if hard != resource.RLIM_INFINITY and soft >= hard:
            raise BotProcessError("CPU budget of the process used up")  # the caller starts a fresh one
        try:
            resource.prlimit(pid, resource.RLIMIT_CPU, (soft, hard))
        except OSError:
            pass

    def bot_pid(self) -> int | None:
        """The pid of the bot itself: the process started, or in a sandbox the one bwrap runs (None if not found)."""
        if self._bot_pid is None:
            self._bot_pid = sandbox.bot_pid(self.pid)
        return self._bot_pid


# --- processes shared across games ------------------------------------------------------------------------

running_processes: list[BotProcess] = []
"""Every process started here and not yet closed, for the exit handler."""
pools: dict[tuple, list[BotProcess]] = {}
"""Live processes by (command, limits, params): kept across games, one per bot in play."""
_cleanup_registered = False


def _register_cleanup() -> None:
    global _cleanup_registered
    if not _cleanup_registered:
        atexit.register(close_all)
        _cleanup_registered = True


def close_all() -> None:
    """Ends every bot process started by this process: closes their input (a polite bot exits on
    end of input), gives them a moment, kills what is left and reaps everything."""
    mine = [p for p in running_processes if p.creator == os.getpid()]
    for process in mine:
        try:
            process.popen.stdin.close()
        except OSError:
            pass
    deadline = time.monotonic() + 0.5
    for process in mine:
        try:
            process.popen.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        process.close()
    pools.clear()


def pool_key(command: tuple, memory_mb: int | None, cpu_seconds: float | None, params: dict,
              sandboxed: bool, folder: str | None = None) -> tuple:
    return command, memory_mb, cpu_seconds, json.dumps(params, sort_keys=True, default=repr), sandboxed, folder


def _acquire(key: tuple, owner: Any, setup_time_limit: float | None = None, wall_backstop=WALL_BACKSTOP) -> BotProcess:
    """A healthy process for `key` that no other live bot instance holds; starts one (and says hello)
    when there is none. Broken and exited processes are reaped here."""
    for process in [p for p in running_processes if p.broken and p.creator == os.getpid()]:
        if process.popen.poll() is not None:  # killed earlier: reap it now rather than at exit
            process.close()
    pool = pools.setdefault(key, [])
    for process in list(pool):
        if process.broken or process.creator != os.getpid() or process.popen.poll() is not None:
            pool.remove(process)
            if process.creator == os.getpid():
                process.close()
            continue
        holder = process.owner() if process.owner is not None else None
        if holder is None or holder is owner:
            process.owner = weakref.ref(owner) if owner is not None else None
            return process
    command, memory_mb, cpu_seconds, params, sandboxed, folder = key
    process = BotProcess(command, memory_mb, cpu_seconds, host_env() if is_host(command) else None, sandboxed,
                         folder)
    try:
        process.handshake(json.loads(params), setup_time_limit, wall_backstop)
    except BaseException:
        process.close()
        raise
    process.owner = weakref.ref(owner) if owner is not None else None
    pool.append(process)
    return process


# --- the bot class that stands for a process --------------------------------------------------------------


class ProcessBot(Bot):
    """A bot that plays through a process; `process_bot_class` makes one subclass per command."""

    command: ClassVar[tuple[str, ...]] = ()
    memory_mb: ClassVar[int | None] = None
    cpu_seconds: ClassVar[float | None] = None
    move_time_limit: ClassVar[float | None] = None
    """The referee's move time limit (keep them equal): the process's CPU time for an answer."""
    setup_time_limit: ClassVar[float | None] = None
    """The referee's setup time limit (keep them equal): the CPU time for answers to hello and reset."""
    wall_backstop: ClassVar[float] = WALL_BACKSTOP
    """The referee's wall-clock backstop (keep them equal): an answer's wall time is this many times its limit."""
    own_deadlines: ClassVar[bool] = True
    """Its setup calls wait on the process with deadlines of their own, which leave out arena's start-up of
    a fresh process: the referee does not time them with its clock."""
    sandboxed: ClassVar[bool] = False
    """True when the process runs in the sandbox (arena/isolation/sandbox.py)."""
    sends_rng_state: ClassVar[bool] = False
    """True for the built-in host: reset carries the full rng state, so a game replays exactly as in process."""
    hello_error: ClassVar[str | None] = None
    """Why the hello when the class was made failed (None when it went well)."""
    spec: ClassVar[str | None] = None
    """The spec of the Python bot class as the built-in host resolved it (None for a command)."""
    folder: ClassVar[str | None] = None
    """A command bot's own folder: its working directory, bound read-only in the sandbox (None: none)."""

    def __init__(self, **params: Any) -> None:
        self.params = params
        self.process: BotProcess | None = None
        self.game: Any = None

    def reset(self, game_id: str, seat: int, rules: Any, rng: random.Random) -> None:
        """Takes a process (a fresh one after a fault) and tells it about the new game."""
        super().reset(game_id, seat, rules, rng)
        self.game = game = get_game(game_id)
        state = rng.getstate() if self.sends_rng_state else None
        message = {"type": "reset", "game": game_id, "seat": seat, "players": game.players(rules),
                   "rules": asdict(rules), "seed": rng.getrandbits(31)}
        if state is not None:
            message["rng_state"] = pack_rng_state(state)
        key = pool_key(self.command, self.memory_mb, self.cpu_seconds, self.params, self.sandboxed, self.folder)
        setup, wall = self.setup_time_limit, self.wall_backstop
        try:
            self.process = process = _acquire(key, self, setup, wall)
            try:
                process.limit_cpu()
            except BotProcessError:  # its lifetime CPU budget is spent (or cannot be raised): a fresh process, no fault
                process.kill("CPU budget used up")
                self.process = process = _acquire(key, self, setup, wall)
            process.fresh = False  # it has begun a game: its CPU limit is raised from the next one on
            answer = process.request(message, cpu := RESET_TIMEOUT if setup is None else setup, setup_wall(cpu, wall))
        except SetupTimeout as late:
            if setup is None:
                raise
            raise MoveTimeout(late.wall) from None  # the referee's timeout, as for a bot in its process
        if answer.get("ok") is not True:
            process.kill("refused reset")
            raise BotProcessError(f"bad answer to reset: {snippet(answer)}")

    def act(self, observation: Any) -> Any:
        """The move the process answers, parsed in the game's notation (a BadAnswer when it is none)."""
        process = self.process
        if process is None or process.broken:
            raise BotProcessError(f"bot process is gone ({process.broken if process else 'no reset'})")
        data = b'{"type":"act","observation":' + encode_json(self.game.observation_json(observation)).encode() + b"}\n"
        allowance = Allowance(process.bot_pid(), limit := self.move_time_limit, limit and limit * self.wall_backstop)
        try:
            answer = process.exchange(data, allowance)
        except NoAnswer as late:
            note_move(*allowance.took())  # a late move is the game's slowest
            process.kill("timeout")
            raise MoveTimeout(late.wall) from None
        except ProtocolError as error:
            process.kill("malformed answer")
            return BadAnswer(f"(malformed answer: {error})")
        except MoveTimeout:  # from the referee's clock
            process.kill("timeout")
            raise
        except BaseException:  # a crash, an interrupt: never reuse it
            process.kill("failed in act")
            raise
        note_move(*allowance.took())  # towards the game's slowest move, by the process's own CPU time
        try:
            return move_from_answer(self.game, answer)
        except BotProcessError:
            process.kill("error answer")
            raise


_classes: dict[tuple, type] = {}


def process_bot_class(command: Sequence[str], *, name: str | None = None, params: dict | None = None,
                      memory_mb: int | None = DEFAULT_MEMORY_MB, cpu_seconds: float | None = None,
                      move_time_limit: float | None = None, setup_time_limit: float | None = None,
                      wall_backstop: float = WALL_BACKSTOP, sandboxed: bool = False, strict: bool = True,
                      folder: str | None = None) -> type:
    """A bot class whose instances play through a process running `command` (made once per arguments), in
    `folder` when given. It says hello once now, to learn the bot's name and games (that process then plays the
    first games); a failed hello raises BotProcessError when `strict`, else the class plays on and every game's
    reset tries a fresh process.
    """
    command = tuple(command)
    params = dict(params or {})
    key = (command, name, json.dumps(params, sort_keys=True, default=repr), memory_mb, cpu_seconds, move_time_limit,
           setup_time_limit, wall_backstop, sandboxed, folder)
    if key not in _classes or strict and _classes[key].hello_error:
        hello, hello_error = {}, None
        try:
            pool = pool_key(command, memory_mb, cpu_seconds, params, sandboxed, folder)
            hello = _acquire(pool, None, setup_time_limit, wall_backstop).hello or {}
        except BotProcessError as error:
            if strict:
                raise
            hello_error = str(error)
        games = hello.get("games")
        attrs = {"name": name or hello.get("name") or Path(command[0]).name, "games": None if games is None
                 else frozenset(games), "command": command, "memory_mb": memory_mb, "cpu_seconds": cpu_seconds,
                 "move_time_limit": move_time_limit, "setup_time_limit": setup_time_limit,
                 "wall_backstop": wall_backstop, "sandboxed": sandboxed, "sends_rng_state": is_host(command),
                 "hello_error": hello_error, "spec": hello.get("spec") if is_host(command) else None, "folder": folder,
                 "__doc__": f"The bot process `{' '.join(command)}`."}
        _classes[key] = type("ProcessBot", (ProcessBot,), attrs)
    return _classes[key]


def python_command(spec: str) -> list[str]:
    """The built-in host running the Python bot class `spec` (`/path/file.py:Class` or `module:Class`)."""
    return host_command(spec)


def host_env() -> dict[str, str]:
    """The environment of the built-in host: this arena package first on its path."""
    env, root = dict(os.environ), str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env
