"""What a model seat sees and how its answer is read: a rules summary of the game (RULES.md's notation), then at
each decision the observation as text with the legal moves numbered; an answer is a move's number or notation."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from arena.errors import ArenaError

RULES = {
    "caterpillar": (
        "Caterpillar, 2 players, 52 cards. Cards are rank then suit: ranks A 2 3 4 5 6 7 8 9 T J Q K, suits C D H S "
        "(TH = ten of hearts). On your turn play one card from your hand to the end of the caterpillar, then draw. "
        "Legal: any face card (J Q K), or a numeral (A-T) of the same suit as the last card played; the first card "
        "may be any card. Numerals add their pips (A = 1) to the running total; when the total is a multiple of 5 "
        "you score the total. A face card adds nothing but scores the total if it is a multiple of 5 and the face "
        "card has the suit of the last card. After the last play each face card left in your hand is worth 100 to "
        "you. If you hold no legal card, play stops and you score 100 for each face card in the other hand."),
    "give_or_take": (
        "Give or Take, 2 players. A count starts from the turn-up card. Play one card and an operation: "
        "+ add, - subtract, / divide, * multiply, k King action (halve an even count, double an odd one). "
        "A move is the card then its operation, e.g. 7H+, 5C/, KSk. Q = 0, A = 1, 2-10 face value; a Jack copies "
        "the card before it. Same rank as the card before scores you 10; same suit scores your opponent 10. "
        "After 6 plays each, your opponent scores (count - your last card)^2. First to 101 wins."),
    "go_for_it": (
        "Go For It, 2-6 players. Each player has a face-down pile and plays its top card onto a row. Moves: play "
        "(add your next card to the row), pass, claim (win the row when it makes a winning combination: a pair, "
        "a flush or run of 3, 4 suits, 5 of one colour, 6 different numerals, or a card pairing the first or the "
        "last card of the row), take (take the row up into your pile). Score: cards won minus cards left."),
    "duke_of_york": (
        "Duke of York, 2 players, 5 rounds. Exchange: take a table card (take:0 or take:1), then put one card of "
        "your hand into that slot (discard:7H). Play: cards are rank then suit (7H); the count starts at 0 and goes "
        "up while it stays at most 31, then down while it stays at least 0. Q = 0, A = 1, 2-10, J = 11, K = 12. "
        "Bringing the count to its highest point scores 1 (2 at 30, 3 at 31); playing the last card scores 1 "
        "(2 if the count ends at 1, 3 at 0)."),
}
"""A short summary of each game's rules, in RULES.md's notation (the moves a model answers with)."""

INSTRUCTIONS = ("You play a card game. At each decision you are shown what you can see and your legal moves, "
                "numbered. Answer with the number of the move you choose (or the move itself), and nothing else.")


def system_prompt(game_id: str) -> str:
    """What a model seat is told before each decision: what it must do and the rules of `game_id`."""
    return f"{INSTRUCTIONS}\n\nRules: {RULES.get(game_id, game_id)}"


def decision_prompt(observation_json: dict[str, Any], legal: Sequence[str]) -> str:
    """The message of one decision: the observation as text (its legal moves apart), then the legal moves
    numbered from 1."""
    seen = {key: value for key, value in observation_json.items() if key not in ("legal_moves", "rules")}
    lines = [f"{key}: {_text(value)}" for key, value in seen.items()]
    lines.append("Legal moves:")
    lines += [f"{number}. {move}" for number, move in enumerate(legal, 1)]
    lines.append("Your move (a number):")
    return "\n".join(lines)


def _text(value: Any) -> str:
    """A value of an observation as a line: lists of cards spaced, anything else as compact JSON."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return " ".join(value) if value else "(none)"
    return json.dumps(value, separators=(",", " "))


class Unreadable(ArenaError, ValueError):
    """An answer that names no legal move; its message says why, and is what the model is told."""


_NUMBER = re.compile(r"(?<![\w.])(\d+)(?!\w|\.\d)")


def parse_answer(answer: str, legal: Sequence[str]) -> int:
    """The index in `legal` of the move an answer names: a legal move written in notation (case aside) as a word of
    it, else its first number (counted from 1). Raises Unreadable saying why."""
    text = answer.strip()
    if not text:
        raise Unreadable("the answer was empty")
    by_text = {move.lower(): i for i, move in enumerate(legal)}
    for word in re.findall(r"[\w:+\-/*]+", text):
        if word.lower() in by_text:
            return by_text[word.lower()]
    number = _NUMBER.search(text)
    if number is not None:
        chosen = int(number.group(1))
        if 1 <= chosen <= len(legal):
            return chosen - 1
        raise Unreadable(f"{chosen} is not the number of a legal move (1 to {len(legal)})")
    raise Unreadable(f"{_clip(text)!r} names no legal move; answer with a number from 1 to {len(legal)}")


def _clip(text: str, length: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= length else text[: length - 3] + "..."
