"""The human seat of `arena play`: a person at the terminal plays one seat (or several).

`arena play duke_of_york human random` seats you at seat 0. At each of your turns the screen
shows what your seat may know, taken from its observation alone (never from the game state, so
nothing hidden can leak): the table, your hand, the scores, what the other seats did since your
last turn, and the legal moves numbered and in docs/rules.md notation. Type a number or a move; `?`
shows a summary of the rules, `q` or Ctrl-D leaves.

`human` is not in the bot registry on purpose: only `arena play` maps the name to `HumanBot`, so a
tournament config cannot seat a player who would keep the whole run waiting.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from typing import Any, ClassVar, TextIO

from rich.columns import Columns
from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from arena.bots import Bot
from arena.cards import NAME, RANK, SUIT
from arena.games import MoveError, get_game

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


def terminal_console() -> Console:
    """A console on stdout. Rich already leaves out colour when stdout is not a terminal; with
    NO_COLOR set (to anything non-empty, as no-color.org says) we turn off every style, bold
    included, so the output holds no escape codes at all."""
    plain = bool(os.environ.get("NO_COLOR"))
    return Console(highlight=False, markup=False, emoji=False, color_system=None if plain else "auto")


class View:
    """How a game's observation is shown. The fallback for a game without its own view lists the
    observation's fields as they are: still only what the seat may know."""

    rules_text: ClassVar[str] = "No summary for this game: see docs/rules.md."

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


class CaterpillarView(View):
    """Caterpillar: the row of cards, the running total, the hand."""

    rules_text = (
        "Caterpillar: play one card to the end of the caterpillar, then draw the top card of the stock.\n"
        "- The first card may be any card; after that any face card (J Q K), or a numeral (A-10) of the suit "
        "of the card played just before. Pips: A = 1, 2-10 face value; J Q K add nothing.\n"
        "- A numeral that brings the running total to a multiple of 5 scores the total; a face card scores it "
        "only if the total is a multiple of 5 and the face card has the suit of the card before it.\n"
        "- After the 26th play each player scores 100 per face card in their own hand.\n"
        "- A player to move who holds no legal card is court short: play stops, and they score 100 per face "
        "card in the other player's hand.")

    def board(self, obs, me):
        return [("caterpillar", f"{cards(obs.caterpillar)}  ({len(obs.caterpillar)} played)"),
                ("total", str(obs.total)),
                ("scores", score_line(obs.scores, me)),
                ("cards left", f"stock {obs.stock_left} · {who(1 - me, me)} holds {obs.opponent_hand_size}"),
                ("your hand", cards(obs.hand, sort=True))]

    def news(self, prev, obs, me):
        start = len(prev.caterpillar) if prev else 0
        # Seat 0 plays first and turns alternate, so card i of the caterpillar was played by seat i % 2.
        return [f"{who(i % 2, me)} played {NAME[c]}" for i, c in enumerate(obs.caterpillar)
                if i >= start and i % 2 != me]

    def decisions(self, obs):
        return len(obs.caterpillar)


class GiveOrTakeView(View):
    """Give or Take: the deal, the turn-up, the count, the plays of this deal."""

    rules_text = (
        "Give or Take: in each deal 6 cards each are played alternately onto a count that starts at the "
        "turn-up's value; deals go on until a total reaches {target}, and the higher total wins.\n"
        "- Values: Q = 0, A = 1, 2-10 face value. A King halves an even count and doubles an odd one (k). "
        "A Jack copies the card before it (and acts as a King after a King).\n"
        "- Value v on count c: v > c adds (+); v < c divides (/) if c is a multiple of v, else subtracts (-); "
        "v == c: you choose + (2c), - (0) or / (1). An Ace on a count above 1 divides.{multiply}\n"
        "- Same rank as the card before: you score 10. Same suit: your opponent scores 10.\n"
        "- End of a deal: with L your last card's value and C the count right after it, your opponent scores "
        "(C - L) squared; if C == L you score 10.\n"
        "- Moves: the card then its operation, e.g. 7H+, 5C/, KSk.")

    def summary(self, rules):
        multiply = (" Option multiply: a card with a value may also multiply (*) when the product is at most 20."
                    if rules.multiply else "")
        return self.rules_text.format(multiply=multiply, target=rules.target)

    def board(self, obs, me):
        rules = obs.rules
        options = f"target {rules.target}" + (", multiply" if rules.multiply else "")
        plays = " · ".join(f"{who(s, me)} {NAME[c]}{op}" for s, c, op in obs.played) or "-"
        jack = "acts as a King" if obs.last_king else f"copies {obs.last_value}"
        return [("deal", f"{obs.deal} (dealer {who(obs.dealer, me)}; {options})"),
                ("turn-up", NAME[obs.turn_up]),
                ("this deal", plays),
                ("count", str(obs.count)),
                ("a Jack now", jack),
                ("scores", score_line(obs.scores, me)),
                ("cards left", f"{who(1 - me, me)} holds {obs.opponent_hand_size}"),
                ("your hand", cards(obs.hand, sort=True))]

    def news(self, prev, obs, me):
        lines, start = [], 0
        if prev and prev.deal == obs.deal:
            start = len(prev.played)
        elif prev:  # the plays that ended the last deal are gone from the observation; the scores tell
            lines.append(f"deal {prev.deal} ended; deal {obs.deal}: dealer {who(obs.dealer, me)}, "
                         f"turn-up {NAME[obs.turn_up]}")
        lines += [f"{who(s, me)} played {NAME[c]}{op}" for i, (s, c, op) in enumerate(obs.played)
                  if i >= start and s != me]
        return lines

    def decisions(self, obs):
        return 12 * obs.deal + len(obs.played)  # every deal is exactly 12 plays


class GoForItView(View):
    """Go For It: the row, every seat's pile and winnings (nobody sees the unseen part of a pile)."""

    rules_text = (
        "Go For It: everyone has a face-down pile and only ever turns up its top card onto the row; starting "
        "a row turns up two cards.\n"
        "- After each card: your last card ends the game (the row is yours); a joker sends the row to the "
        "bottom of your pile and itself to your left neighbour's; a row of 7 is yours.\n"
        "- A winning combination lets you claim the row or play on: 2 a pair, 3 a flush or run, 4 four suits, "
        "5 one colour, 6 six different numerals A-10; or a card pairing the row's first card or the one before.\n"
        "- Otherwise a card pairing another card of the row makes you take the row up; else play on or pass. "
        "After a full round of passes the last card's player must play or take.\n"
        "- Score: cards won minus cards left in your pile. Moves: play, pass, claim, take.")

    def board(self, obs, me):
        rules = obs.rules
        row = cards(obs.row)
        if obs.row:
            row += f"  (last card by {who(obs.last_player, me)}; passes {obs.passes} of {rules.players})"
        rows = [("row", row)]
        for seat in range(rules.players):
            known = obs.pile_known[seat]
            pile = f"pile {obs.pile_sizes[seat]}" + (f" (bottom known: {cards(known)})" if known else "")
            score = len(obs.winnings[seat]) - obs.pile_sizes[seat]
            rows.append((who(seat, me), f"{pile} · won {len(obs.winnings[seat])} · score {score}"))
        rows.append(("decisions", f"{obs.decisions} (limit {rules.max_decisions})"))
        return rows

    def news(self, prev, obs, me):
        # The observation keeps no list of moves, so tell the changes: decisions made, cards won.
        others = obs.decisions - (prev.decisions + 1 if prev else 0)
        lines = [f"{others} decision{'s' * (others != 1)} by the other seats"] if others > 0 else []
        for seat, won in enumerate(obs.winnings):
            gained = len(won) - (len(prev.winnings[seat]) if prev else 0)
            if seat != me and gained > 0:
                lines.append(f"{who(seat, me)} won {gained} card{'s' * (gained != 1)}")
        return lines

    def decisions(self, obs):
        return obs.decisions


class DukeOfYorkView(View):
    """Duke of York: the round, the exchange with the table slots, the count up and down the hill."""

    rules_text = (
        "Duke of York: 5 rounds of 5 cards each; two cards lie face down on the table (slots 0 and 1).\n"
        "- Exchange: the leader, then the dealer, takes a slot's card (take:0 / take:1) and puts any card of "
        "the hand face down into that same slot (discard:7H).\n"
        "- Play: from 0 the count goes up; play a card keeping count + value <= 31 if you can. If you cannot, "
        "the play turns down and you play now, keeping count - value >= 0; if you cannot, the round ends.\n"
        "- Values: {values}. Play a card by its name, e.g. 7H.\n"
        "- Top of the hill: whoever first brought the count to its highest scores 1 (2 at 30, 3 at 31). "
        "Bottom: whoever played the last card (if a player is stuck, the other) scores 1 (2 if the final "
        "count is 1, 3 if 0).\n"
        "- After 5 rounds the higher total wins.")

    VALUE_TEXTS: ClassVar[dict[str, str]] = {
        "queen_zero": "Q = 0, A = 1, 2-10 face value, J = 11, K = 12",
        "face_value": "A = 1, 2-10 face value, J = 11, Q = 12, K = 13",
        "queen_eleven": "A = 1, 2-10 face value, Q = 11, J = 12, K = 13"}

    def summary(self, rules):
        return self.rules_text.format(values=self.VALUE_TEXTS.get(rules.values, rules.values))

    def board(self, obs, me):
        from arena.games.duke_of_york import ROUNDS, VALUES

        value = VALUES[obs.rules.values]
        leader = 1 - obs.dealer
        count = f"{obs.count}, going {obs.direction}"
        if obs.peak >= 0:
            count += f" (peak {obs.peak} by {who(obs.peak_seat, me)})"
        slots = " · ".join(f"slot {i}: " + ("face down" if c is None else f"{NAME[c]} (put there by you)")
                           for i, c in enumerate(obs.table))
        rows = [("round", f"{obs.round} of 0-{ROUNDS - 1} (dealer {who(obs.dealer, me)}, leader {who(leader, me)})"),
                ("count", count),
                ("this round", " · ".join(f"{who(s, me)} {NAME[c]}" for s, c in obs.played) or "-"),
                ("table", slots)]
        if obs.taken is not None:
            rows.append(("you took", NAME[obs.taken]))
        rows += [("scores", score_line(obs.scores, me)),
                 ("cards left", f"{who(1 - me, me)} holds {obs.opponent_hand_size} · stock {obs.stock_size}"),
                 ("your hand", " ".join(f"{NAME[c]}={value[c]}" for c in obs.hand) or "-")]
        return rows

    @staticmethod
    def _event(moves: Sequence[tuple[int, tuple]], i: int) -> str:
        """Move i of a round in words; an opponent's discard is hidden, but its slot is the one just taken."""
        kind, arg = moves[i][1]
        if kind == "take":
            return f"took the card in slot {arg}"
        if kind == "discard":
            slot = moves[i - 1][1][1] if i and moves[i - 1][1][0] == "take" else "?"
            return f"put a card face down in slot {slot}"
        return f"played {NAME[arg]}"

    def news(self, prev, obs, me):
        # Events keyed (round, move index in the round): a round opens with 4 exchange moves, then the plays.
        # Earlier rounds keep only their plays in the observation, so those are the events shown for them.
        events = [((r, 4 + j), s, f"played {NAME[c]}") for r, plays in enumerate(obs.earlier)
                  for j, (s, c) in enumerate(plays)]
        events += [((obs.round, i), s, self._event(obs.moves, i)) for i, (s, _) in enumerate(obs.moves)]
        since = (prev.round, len(prev.moves)) if prev else (-1, 0)
        lines = [f"{who(s, me)} {text}" for key, s, text in events if key >= since and s != me]
        if prev and prev.round != obs.round:
            lines.append(f"round {prev.round} ended; round {obs.round}: dealer {who(obs.dealer, me)}")
        return lines

    def decisions(self, obs):
        return sum(4 + len(plays) for plays in obs.earlier) + len(obs.moves)


VIEWS: dict[str, View] = {"caterpillar": CaterpillarView(), "give_or_take": GiveOrTakeView(),
                          "go_for_it": GoForItView(), "duke_of_york": DukeOfYorkView()}


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
        self.view = VIEWS.get(game_id, View())
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
