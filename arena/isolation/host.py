"""The bot side: the built-in host that plays a Python bot class over the protocol,
`python -m arena.isolation SPEC`."""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Sequence
from typing import Any

from arena import bots
from arena.games import get_game, make_rules
from arena.isolation import landlock
from arena.isolation.protocol import (
    message_line,
    observation_from_json,
    unpack_rng_state,
)


class Host:
    """Plays one Python bot class over the protocol: a fresh instance per game, seeded as in process."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.bot_class: type | None = None
        self.params: dict = {}
        self.bot: Any = None
        self.game: Any = None
        self.rules: Any = None

    def answer(self, message: dict) -> dict:
        """The answer to one message from the arena."""
        kind = message.get("type")
        if kind == "hello":
            self.bot_class = bots.load_bot_class(self.spec)
            self.params = message.get("params") or {}
            try:
                self.bot_class(**self.params)
            except BaseException as error:  # a bot's SystemExit too: this host serves no one else
                return {"error": f"params: {type(error).__name__}: {error}"}
            games = self.bot_class.games
            return {"name": self.bot_class.name, "games": None if games is None else sorted(games),
                    "spec": self.spec if ":" in self.spec or bots.is_bot_folder(self.spec)
                    else bots.resolved_spec(self.bot_class)}
        if kind == "reset":
            self.game = get_game(message["game"])
            self.rules = make_rules(self.game.Rules, message["rules"])
            rng = random.Random(message["seed"])
            if "rng_state" in message:
                rng.setstate(unpack_rng_state(message["rng_state"]))
            self.bot = self.bot_class(**self.params)
            self.bot.reset(self.game.id, message["seat"], self.rules, rng)
            return {"ok": True}
        if kind == "act":
            observation = observation_from_json(self.game, self.rules, message["observation"])
            move = self.bot.act(observation)
            try:
                return {"move": self.game.move_to_str(move)}
            except Exception:  # not a move at all: let the referee call it illegal, as in process
                return {"move": repr(move)}
        raise ValueError(f"unknown message type {kind!r}")

    def reply(self, line: str | bytes) -> dict:
        """The answer to one message line, or the error it raised, as the host sends it."""
        try:
            return self.answer(json.loads(line))
        except Exception as error:
            return {"error": f"{type(error).__name__}: {error}"[:200]}

    def serve(self, stdin, stdout) -> None:
        """Answers messages line by line until the end of input."""
        for line in stdin:
            stdout.write(message_line(self.reply(line)))
            stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m arena.isolation SPEC`: the built-in host for the Python bot class SPEC."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if len(argv) != 1:
        sys.stderr.write("usage: python -m arena.isolation path/to/file.py:Class | module:Class\n")
        return 2
    if os.environ.get(landlock.ENV):  # in the sandbox: a second wall before any of the bot's code is loaded
        try:
            landlock.restrict()
        except OSError as error:
            sys.stderr.write(f"cannot restrict the bot with Landlock: {error}\n")
            return 1
    bots.unshadowed([os.getcwd()])  # `module:Class` of the working directory is found, after everything else
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # the bot's prints must not land in the protocol stream
    stdout.write(message_line({"ready": True}))  # before any of the bot's code: what follows is timed as its setup
    stdout.flush()
    Host(argv[0]).serve(stdin, stdout)
    return 0
