"""The human seat of `arena play`: a person at the terminal plays one seat (or several).

`arena play duke_of_york human random` seats you at seat 0. At each of your turns the screen
shows what your seat may know, as the game's view tells it (arena/games/<game>/views.py) from the
seat's observation alone (never from the game state, so nothing hidden can leak): the table, your
hand, the scores, what the other seats did since your last turn, and the legal moves numbered and
in docs/rules.md notation. Type a number or a move; `?` shows a summary of the rules, `q` or Ctrl-D
leaves.

`human` is not in the bot registry on purpose: only `arena play` maps the name to `HumanBot`, so a
tournament config cannot seat a player who would keep the whole run waiting.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from rich.columns import Columns
from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from arena.bots import Bot
from arena.games import MoveError, get_game, get_view
from arena.games.views import who

CARD_RE = re.compile(r"\b(?:[A2-9TJQK][CDHS]|JK)\b")
"""A card in docs/rules.md notation inside a line of text (what `styled` colours)."""
SUIT_STYLES = {"H": "bold red", "D": "bold red", "C": "bold", "S": "bold", "K": "bold magenta"}
"""Style by the last letter of a card's name: hearts and diamonds red; `K` is the joker (`JK`)."""
QUIT_WORDS = ("q", "quit")


class LeaveGame(BaseException):
    """A human seat leaves the game (`q`, Ctrl-D or Ctrl-C at the prompt).

    A BaseException, like the clock's MoveTimeout, so that the referee's `except Exception` does
    not turn it into a `crash` forfeit: it goes straight up to `arena play`, which prints the
    message and exits 0."""

    def __init__(self, seat: int, move: int) -> None:
        super().__init__(f"seat {seat} (human) left the game at move {move}")
        self.seat, self.move = seat, move


def styled(text: str) -> Text:
    """`text` as rich Text with every card name in it coloured by suit."""
    out = Text(text)
    for match in CARD_RE.finditer(text):
        out.stylize(SUIT_STYLES[match.group()[-1]], match.start(), match.end())
    return out


def terminal_console() -> Console:
    """A console on stdout. Rich already leaves out colour when stdout is not a terminal; with
    NO_COLOR set (to anything non-empty, as no-color.org says) we turn off every style, bold
    included, so the output holds no escape codes at all."""
    plain = bool(os.environ.get("NO_COLOR"))
    return Console(highlight=False, markup=False, emoji=False, color_system=None if plain else "auto")


class HumanBot(Bot):
    """You, at the terminal (only in `arena play`)."""

    name = "human"
    games = None

    def __init__(self, stdin: TextIO | None = None, console: Console | None = None) -> None:
        """`stdin` and `console` default to the process's own (tests pass a stream and a recording console)."""
        super().__init__()
        self.stdin = stdin
        self.console = console or terminal_console()

    def reset(self, game_id: str, seat: int, rules: Any, rng) -> None:
        """A new game: this seat's view of it, and nothing seen yet."""
        super().reset(game_id, seat, rules, rng)
        self.game = get_game(game_id)
        self.view = get_view(game_id)
        self.prev = None
        """This seat's observation at its last turn: what it has seen, so news shows only what is new."""

    def act(self, observation: Any) -> Any:
        """Shows the seat's view, then reads until the input names a legal move."""
        legal = observation.legal_moves
        self.show(observation)
        while True:
            text = self.read_line(observation, legal)
            if text.lower() in QUIT_WORDS:
                raise LeaveGame(self.seat, self.move_number(observation))
            if text == "?":
                self.console.print(styled(self.view.summary(self.rules)), style="cyan")
                self.show_moves(legal)
                continue
            move, hint = self.choose(text, legal)
            if move is not None:
                self.prev = observation
                return move
            self.console.print(Text(hint, style="yellow"), soft_wrap=True)  # one line, however long

    def move_number(self, observation: Any) -> int | str:
        """The number of the move now due, counted over the whole game (`?` if the view cannot tell)."""
        done = self.view.decisions(observation)
        return "?" if done is None else done + 1

    def show(self, obs: Any) -> None:
        """Header, news since this seat's last turn, the table, and the moves."""
        me, console = self.seat, self.console
        console.print()
        console.print(Rule(f"{self.game_id} · move {self.move_number(obs)} · seat {me} (you) to play"))
        news = self.view.news(self.prev, obs, me)
        before, now = getattr(self.prev, "scores", None), getattr(obs, "scores", None)  # Go For It has none
        if before is not None and now is not None and before != now:
            news.append("scores now " + " · ".join(f"{who(s, me)} {v} ({v - before[s]:+d})" for s, v in enumerate(now)))
        if news:
            console.print(Text("since your last turn:", style="dim"))
            for line in news:
                console.print(styled("  " + line))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="dim", no_wrap=True)
        grid.add_column()
        for label, value in self.view.board(obs, me):
            grid.add_row(label, styled(value))
        console.print(grid)
        self.show_moves(obs.legal_moves)

    def show_moves(self, legal: Sequence[Any]) -> None:
        """The legal moves, numbered, in docs/rules.md notation: `1) 7H   2) QS`, in columns so that wrapping
        never splits a number from its move."""
        self.console.print(Text("moves:", style="dim"))
        items = [styled(f"{i}) {self.game.move_to_str(m)}") for i, m in enumerate(legal, 1)]
        self.console.print(Columns(items, padding=(0, 3)))

    def read_line(self, observation: Any, legal: Sequence[Any]) -> str:
        """One line of input, stripped; end of input or Ctrl-C leaves the game."""
        example = self.game.move_to_str(legal[0])
        prompt = f"seat {self.seat}, your move (1-{len(legal)} or e.g. {example}; ? rules; q leave): "
        self.console.print(styled(prompt), end="")
        try:
            line = (self.stdin or sys.stdin).readline()
        except KeyboardInterrupt:
            line = ""
        if not line:  # EOF: Ctrl-D at the terminal, or the end of piped input
            self.console.print()
            raise LeaveGame(self.seat, self.move_number(observation))
        return line.strip()

    def choose(self, text: str, legal: Sequence[Any]) -> tuple[Any, str]:
        """The legal move that `text` names (a number from the list or a move in notation), else a hint."""
        if not text:
            return None, f"type a number from 1 to {len(legal)} or a move from the list (? for the rules)"
        if text.isdecimal():  # not isdigit: int() rejects digits such as '²'
            number = int(text)
            if 1 <= number <= len(legal):
                return legal[number - 1], ""
            return None, f"no move {number}: choose a number from 1 to {len(legal)}"
        try:
            move = self.game.parse_move(text)
        except MoveError as error:
            return None, f"{error} - or a number from 1 to {len(legal)}"
        if move in legal:
            return legal[legal.index(move)], ""
        return None, f"{self.game.move_to_str(move)} is not legal now: choose one from the list"
