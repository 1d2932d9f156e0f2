"""The JSON-lines protocol between arena and a bot process (docs/protocol.md), both sides of it: the
messages' encoding, answers decoded into moves, observations and random states as JSON, and the errors a
process's answers make."""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

from arena.cards import NAME
from arena.errors import ArenaError

PROTOCOL = 1
MAX_LINE = 1 << 20
"""The longest answer read; anything longer is a malformed line."""


class BotProcessError(ArenaError):
    """A bot process that failed: it could not start, exited, was killed, or answered with an error."""


class SetupTimeout(BotProcessError):
    """No answer to hello or reset within its time limit (`wall`: within its wall-clock backstop)."""

    def __init__(self, message: str, wall: bool = False) -> None:
        super().__init__(message)
        self.wall = wall


class ProtocolError(ArenaError):
    """A line from a bot that is not a JSON object (or more than one answer at once)."""


class NoAnswer(ArenaError):
    """No (complete) answer before the deadline (`wall`), or within the CPU time allowed."""

    def __init__(self, wall: bool = True) -> None:
        super().__init__(wall)
        self.wall = wall


class BadAnswer:
    """What `act` returns for an answer that is no move: never equal to a legal move, so the referee
    records an illegal move, with this object's repr as the fault."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def snippet(value: Any, size: int = 40) -> str:
    """The repr of `value`, cut to `size` characters."""
    text = repr(value)
    return text if len(text) <= size else text[:size - 3] + "..."


encode_json = json.JSONEncoder(separators=(",", ":")).encode
"""Compact JSON (json.dumps with options builds an encoder per call)."""


def message_line(message: dict) -> bytes:
    """One protocol message as a line of compact JSON."""
    return encode_json(message).encode() + b"\n"


def error_text(value: Any) -> str:
    """An error as text, cut to 200 characters."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def decode_answer(line: bytes) -> dict:
    """The JSON object on one line from a bot; raises ProtocolError for anything else."""
    try:
        answer = json.loads(line)
    except (ValueError, RecursionError):
        raise ProtocolError(f"not JSON: {snippet(line)}") from None
    if not isinstance(answer, dict):
        raise ProtocolError(f"not a JSON object: {snippet(line)}")
    return answer


def move_from_answer(game: Any, answer: dict) -> Any:
    """The move in an answer to act, parsed with the game's notation, or a BadAnswer; raises
    BotProcessError when the bot answers with an error."""
    if "error" in answer:
        raise BotProcessError(error_text(answer["error"]))
    text = answer.get("move")
    if not isinstance(text, str):
        return BadAnswer(f"(answer without a move string: {snippet(answer)})")
    try:
        return game.parse_move(text)
    except Exception:
        return BadAnswer(f"{snippet(text)} (not a move of {game.id})")


def pack_rng_state(state: tuple) -> list:
    """A random.Random state as JSON: [version, its 625 words as base64 of little-endian uint32, gauss_next]."""
    version, words, gauss = state
    return [version, base64.b64encode(struct.pack(f"<{len(words)}I", *words)).decode(), gauss]


def unpack_rng_state(packed: list) -> tuple:
    """The random.Random state that pack_rng_state packed."""
    version, text, gauss = packed
    raw = base64.b64decode(text)
    return version, struct.unpack(f"<{len(raw) // 4}I", raw), gauss


_CARD = {name: card for card, name in enumerate(NAME)}


def _cards(names: list) -> tuple:
    return tuple(_CARD[n] for n in names)


def _card_or_none(name: str | None) -> int | None:
    return None if name is None else _CARD[name]


def observation_from_json(game: Any, rules: Any, data: dict) -> Any:
    """The game's Observation back from its `observation_json` (with the rules object of the game)."""
    parse, d = game.parse_move, data
    legal = tuple(parse(m) for m in d["legal_moves"])
    if game.id == "caterpillar":
        return game.Observation(d["seat"], rules, _cards(d["hand"]), _cards(d["caterpillar"]), d["total"],
                                tuple(d["scores"]), d["stock_left"], d["opponent_hand_size"], legal)
    if game.id == "give_or_take":
        return game.Observation(d["seat"], rules, d["deal"], d["dealer"], _cards(d["hand"]), d["count"],
                                _CARD[d["turn_up"]], tuple((s, _CARD[c], op) for s, c, op in d["played"]),
                                d["last_king"], d["last_value"], tuple(d["scores"]), d["opponent_hand_size"], legal)
    if game.id == "go_for_it":
        return game.Observation(d["seat"], rules, _cards(d["row"]), d["last_player"], d["passes"],
                                tuple(d["pile_sizes"]), tuple(_cards(p) for p in d["pile_known"]),
                                tuple(_cards(w) for w in d["winnings"]), d["decisions"], d["turn"], legal)
    if game.id == "duke_of_york":
        moves = tuple((s, game.HIDDEN_DISCARD if m == "discard:??" else parse(m)) for s, m in d["moves"])
        return game.Observation(d["seat"], rules, d["round"], d["dealer"], d["to_move"], _cards(d["hand"]),
                                tuple(_card_or_none(c) for c in d["table"]), _card_or_none(d["taken"]), d["count"],
                                d["direction"], d["peak"], d["peak_seat"], tuple((s, _CARD[c]) for s, c in d["played"]),
                                tuple(tuple((s, _CARD[c]) for s, c in r) for r in d["earlier"]), moves,
                                tuple(d["scores"]), d["opponent_hand_size"], d["stock_size"], legal)
    raise ValueError(f"no observation decoder for {game.id}")
