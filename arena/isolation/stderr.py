"""A bot process's stderr, which comes to arena through a pipe read whenever arena waits on the bot: its last lines
are kept, to say why a process exited during hello (and left in ARENA_BOT_STDERR_TAILS's folder when that names
one), and everything is appended to ARENA_BOT_STDERR's file when that names one. arena never parses it."""

from __future__ import annotations

import os
import select
import subprocess
from pathlib import Path

from arena.isolation.limits import stderr_sink

TAIL_BYTES = 4096
"""Bytes of a bot's stderr kept, newest last."""
LAST_LINES = 3
"""How many of its last lines an error about a failed hello quotes."""


class StderrPipe:
    """The pipe of one bot process's stderr: `child_end` for the process, `fd` for arena (None once it ended)."""

    def __init__(self, tail_file: Path | None = None) -> None:
        self.fd: int | None
        self.fd, self.child_end = os.pipe()
        os.set_blocking(self.fd, False)
        sink = stderr_sink()
        self.log = None if sink in (subprocess.DEVNULL, None) else sink
        self.tail = bytearray()
        self.tail_file = tail_file
        """Where the last lines go when the pipe is closed (limits.TAILS_ENV), if anywhere."""
        self.pollers: tuple[select.poll, ...] = ()

    def watch(self, *pollers: select.poll) -> None:
        """Registers the pipe with the pollers that wait on the bot, until its end."""
        self.pollers = pollers
        for poller in pollers:
            poller.register(self.fd, select.POLLIN)

    def started(self) -> None:
        """Closes the process's end here, once the process holds it (or failed to start)."""
        os.close(self.child_end)

    def read(self) -> None:
        """Reads what the bot has written so far, a bounded amount at a time (a bot that writes without end
        must not keep arena here); at its end the pipe is closed and `fd` is None."""
        for _ in range(16):
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:  # its end: polled no more, or every poll would wake at once
                self._end()
                return
            if self.log is not None:
                self.log.write(chunk)
                self.log.flush()
            self.tail += chunk
            del self.tail[:-TAIL_BYTES]

    def last_words(self) -> str:
        """The last lines the bot wrote, on one line ("" when none)."""
        if self.fd is not None:
            self.read()
        lines = [line.strip() for line in self.tail.decode(errors="replace").splitlines() if line.strip()]
        return " | ".join(lines[-LAST_LINES:])

    def _end(self) -> None:
        for poller in self.pollers:
            poller.unregister(self.fd)
        os.close(self.fd)
        self.fd = None

    def close(self) -> None:
        """Reads what is there (what the bot wrote last still goes to the log; a child of the bot may hold the
        pipe open, so no waiting for its end) and closes the pipe and the log."""
        if self.fd is not None:
            self.read()
        if self.fd is not None:
            self._end()
        if self.log is not None:
            self.log.close()
            self.log = None
        if self.tail_file is not None and self.tail:
            try:  # a new file renamed into place: a reader never sees half of it
                self.tail_file.parent.mkdir(parents=True, exist_ok=True)
                staged = self.tail_file.with_name(f".{self.tail_file.name}.{os.getpid()}")
                staged.write_bytes(bytes(self.tail))
                os.replace(staged, self.tail_file)
            except OSError:
                pass  # the tail is a courtesy to the bot's author, never a reason to stop the game
            self.tail_file = None
