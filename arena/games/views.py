"""How a game is shown, the base of each game's `views` module: a person's seat at the terminal (`arena play ...
human`, whose driver is arena/cli/human.py) and a game's frames in its replay page (arena/report/replay_page.py).

A view works from what it is handed alone. The seat's view reads the seat's observation, never the game state, so
nothing hidden can leak to the person playing; the replay's frames read the full state, since a replay shows every
hand. Neither draws: the seat's view gives lines of text that the terminal colours, and the replay's frames are
JSON that the game's `replay.js`, in the same package, draws in the page.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from importlib.resources import files
from typing import Any, ClassVar

from arena.cards import NAME, RANK, SUIT


def cards(seq: Sequence[int], *, sort: bool = False) -> str:
    """Card names separated by spaces (`-` for none); sorted by suit then rank for a hand."""
    seq = sorted(seq, key=lambda c: (SUIT[c], RANK[c])) if sort else seq
    return " ".join(NAME[c] for c in seq) or "-"


def who(seat: int | None, me: int) -> str:
    """`you` for the human's own seat, `seat N` for the others."""
    return "-" if seat is None else "you" if seat == me else f"seat {seat}"


def score_line(scores: Sequence[int], me: int) -> str:
    """Each seat's score, e.g. `you 20 · seat 1 610`."""
    return " · ".join(f"{who(s, me)} {v}" for s, v in enumerate(scores))


def packed(seq: Iterable[int]) -> str:
    """Cards as their names run together, as a replay's frames carry them: `7HTSJK`."""
    return "".join(NAME[c] for c in seq)


def packed_hand(seq: Iterable[int]) -> str:
    """A hand in suit then rank order (jokers last), so that what changes between steps is easy to see."""
    return packed(sorted(seq, key=lambda c: (SUIT[c] % 5, RANK[c])))  # the joker's -1 sorts as 4


class View:
    """How a game is shown. The seat's methods here are the fallback for a game that does not write its own: they
    list the observation's fields as they are, still only what the seat may know."""

    title: ClassVar[str]
    """The game's name as people write it: "Give or Take"."""
    rules_text: ClassVar[str] = "No summary for this game: see docs/rules.md."

    # --- a person's seat at the terminal --------------------------------------------------------------------------

    def board(self, obs: Any, me: int) -> list[tuple[str, str]]:
        """(label, value) rows describing the table as this seat sees it."""
        return [(name, repr(value)) for name, value in obs._asdict().items() if name not in ("legal_moves", "rules")]

    def news(self, prev: Any, obs: Any, me: int) -> list[str]:
        """What the other seats did between `prev` (this seat's observation at its last turn, or None)
        and `obs`."""
        return []

    def decisions(self, obs: Any) -> int | None:
        """How many moves the game has seen so far (None when the observation does not tell)."""
        return None

    def summary(self, rules: Any) -> str:
        """The rules summary shown on `?` (some games fill in their options)."""
        return self.rules_text

    # --- the replay page ------------------------------------------------------------------------------------------

    def frame(self, state: Any) -> dict:
        """A state's own fields as JSON-able data, for the game's `replay.js` to draw (the replay page adds what
        every game's frame has: the move, the seat to move, the scores and the engine's account of the state)."""
        raise NotImplementedError

    def deal_over(self, before: Any, after: Any, seat: int, move: str) -> dict | None:
        """The fields of the frame that shows a deal just finished by `move` of `seat` (the engine has dealt the
        next deal in `after` at once), or None to show no such frame: a game of one deal never needs one."""
        return None

    def extra(self, data: dict) -> dict:
        """Facts of a transcript that never change during the game, given to `replay.js` once rather than in every
        frame."""
        return {}

    def script(self) -> str:
        """The game's `replay.js`, beside its views: it sets `GAME.table(f)` (the zones of the table in the middle)
        and may set `GAME.hand(f, s)` (what seat s holds), with the page script's helpers in scope."""
        package = type(self).__module__.rpartition(".")[0]
        return files(package).joinpath("replay.js").read_text(encoding="utf-8")
