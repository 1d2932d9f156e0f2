#!/usr/bin/env python3
"""random-json: an arena bot as a plain Python script (no arena import), for any game.

It speaks the JSON-lines protocol of docs/protocol.md: one message per line on stdin, one answer
per line on stdout. It picks uniformly among the legal moves with an rng seeded from `reset`, so
every game replays exactly.

    [[bots]]
    name = "random-json"
    command = ["python3", "examples/random_bot.py"]
"""

import json
import random
import sys


def answer(message: dict, state: dict) -> dict:
    """The answer to one message; `state` keeps the rng between messages."""
    kind = message.get("type")
    if kind == "hello":
        return {"name": "random-json", "games": None}
    if kind == "reset":
        state["rng"] = random.Random(message["seed"])
        return {"ok": True}
    if kind == "act":
        return {"move": state["rng"].choice(message["observation"]["legal_moves"])}
    return {"error": f"unknown message type {kind!r}"}


def main() -> None:
    """Answers until the end of input."""
    state: dict = {}
    for line in sys.stdin:
        sys.stdout.write(json.dumps(answer(json.loads(line), state)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
