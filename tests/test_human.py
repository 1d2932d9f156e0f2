"""The human seat of `arena play`, played through a real pseudo-terminal.

Each pty test starts `python -m arena.cli play ...` with stdin, stdout and stderr on the slave side
of `os.openpty()`, so the program sees a terminal (colour, echo, Ctrl-D as end of input) exactly as
a person's shell would give it. The test reads the master side up to each prompt, parses the
numbered moves off the screen and types a choice, by number or in notation, until the game ends.
"""

from __future__ import annotations

import fcntl
import io
import os
import random
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from arena.cards import NAME
from arena.cli import app
from arena.cli.human import CARD_RE, HumanBot, LeaveGame
from arena.games import get_game, make_rules

ROOT = Path(__file__).resolve().parent.parent
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PROMPT = re.compile(r"seat (\d+), your move \([^)]*\): $")
MOVE = re.compile(r"(\d+)\) (\S+)")
ACCOUNT_MOVE = re.compile(r"^\s+seat (\d+) human\s+(\S+)", re.MULTILINE)


def plain(raw: bytes) -> str:
    """Terminal output as text: escape codes gone, CR LF as LF."""
    return ESCAPE.sub("", raw.decode(errors="replace")).replace("\r", "")


class Terminal:
    """`arena play ARGS` on a pseudo-terminal of 120 columns; the test reads and types on the master side."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
        environ = {k: v for k, v in os.environ.items()
                   if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES")}
        environ.update(TERM="xterm-256color", **(env or {}))
        self.proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "play", *args], stdin=slave, stdout=slave,
                                     stderr=slave, cwd=ROOT, env=environ, start_new_session=True)
        os.close(slave)
        self.fd = master
        self.raw = b""  # everything received, escape codes included
        self.pending = b""  # received since the last prompt
        self.tail = ""  # what followed the last prompt, once the program has ended
        self.ended = False

    def turn(self, timeout: float = 15) -> str | None:
        """The screen up to the next prompt (escape codes removed), or None when the program has ended."""
        deadline = time.monotonic() + timeout
        while True:
            text = plain(self.pending)
            if PROMPT.search(text):  # the program now waits for a line: the prompt is the last thing printed
                self.pending = b""
                return text
            ready, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"no prompt within {timeout}s; screen so far:\n{text[-3000:]}"
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # EIO: the program has exited and closed the terminal
                chunk = b""
            if not chunk:
                self.tail, self.pending, self.ended = text, b"", True
                return None
            self.raw += chunk
            self.pending += chunk

    def type(self, line: str) -> None:
        """Types `line` and Enter, as a person would (the terminal echoes it)."""
        os.write(self.fd, line.encode() + b"\n")

    def finish(self) -> int:
        """Reads to the end, closes the terminal; the exit status."""
        assert self.ended or self.turn() is None, "the program asks for another move"
        status = self.proc.wait(timeout=15)
        os.close(self.fd)
        return status


def moves_on(screen: str) -> tuple[int, list[str]]:
    """The seat asked and its numbered moves, as the last prompt and move list on the screen show them."""
    seat = int(PROMPT.search(screen).group(1))
    found = MOVE.findall(screen[screen.rindex("moves:"):])
    assert [int(n) for n, _ in found] == list(range(1, len(found) + 1)), screen
    return seat, [move for _, move in found]


def illegal_notation(game: str, legal: list[str]) -> str:
    """A move written correctly in the game's notation that is not legal now."""
    cards = [NAME[c] for c in range(52)]
    candidates = {"caterpillar": cards, "give_or_take": [c + op for c in cards for op in "+-/*k"],
                  "go_for_it": ["play", "pass", "claim", "take"],
                  "duke_of_york": ["take:0", "take:1", *cards, *("discard:" + c for c in cards)]}[game]
    return next(c for c in candidates if c not in legal)


def check_bad_input(term: Terminal, game: str, screen: str, rules_heading: str) -> str:
    """Garbage, an empty line, an out-of-range number, an illegal move and `?` each get an answer and the
    same prompt again."""
    seat, legal = moves_on(screen)
    too_far = len(legal) + 5
    bad = [("garbage", "not a"), ("²", "not a"), ("", "type a number"), (str(too_far), f"no move {too_far}"),
           (illegal_notation(game, legal), "is not legal now"), ("?", rules_heading)]
    for typed, answer in bad:
        term.type(typed)
        screen = term.turn()
        assert screen is not None and answer in screen, (typed, screen)
        # Still this seat's turn, with the same moves (listed again after `?`): no forfeit.
        assert PROMPT.search(screen).group(0).startswith(f"seat {seat}, your move (1-{len(legal)} ")
    assert moves_on(screen) == (seat, legal)
    return screen


def play_to_the_end(term: Terminal, game: str, rules_heading: str, seed: int) -> list[tuple[int, str]]:
    """Plays every human turn (choices from a fixed rng), by number and by notation in turn; the moves chosen."""
    rng = random.Random(seed)
    chosen: list[tuple[int, str]] = []
    screen = term.turn()
    screen = check_bad_input(term, game, screen, rules_heading)
    while screen is not None:
        seat, legal = moves_on(screen)
        i = rng.randrange(len(legal))
        # Alternate: the number, the notation as shown, the notation in lower case (case does not matter).
        typed = [str(i + 1), legal[i], legal[i].lower()][len(chosen) % 3]
        term.type(typed)
        chosen.append((seat, legal[i]))
        screen = term.turn()
    return chosen


@pytest.mark.parametrize(("args", "heading", "news"), [
    (["caterpillar", "human", "random", "--seed", "5"], "Caterpillar: play one card", "seat 1 played"),
    (["give_or_take", "random", "human", "--seed", "2", "--rule", "multiply=true", "--rule", "target=150"],
     "Give or Take: in each deal", "deal 0 ended; deal 1: dealer seat 0"),
    (["go_for_it", "human", "random", "human", "--rule", "jokers=true", "--seed", "3"], "Go For It: everyone",
     "decisions by the other seats"),
    (["duke_of_york", "human", "random", "--seed", "2", "--rule", "values=face_value"], "Duke of York: 5 rounds",
     "round 0 ended"),
], ids=["caterpillar", "give_or_take", "go_for_it", "duke_of_york"])
def test_a_whole_game_at_the_terminal(args, heading, news):
    term = Terminal(*args)
    chosen = play_to_the_end(term, args[0], heading, seed=len(args))
    assert news in plain(term.raw)  # what the others did since this seat's last turn
    assert term.finish() == 0
    # Played to the end: no forfeit (a bug in the human seat would show as a `crash` here).
    assert re.search(r"^result: (normal|court_short|deal_limit|move_limit) ", term.tail, re.MULTILINE), term.tail
    assert re.search(r"^(winner|tied): ", term.tail, re.MULTILINE) and "forfeits" not in term.tail
    # The account lists exactly the moves typed at the human seats, in order.
    assert [(int(s), m) for s, m in ACCOUNT_MOVE.findall(term.tail)] == chosen
    assert {seat for seat, _ in chosen} == {i for i, bot in enumerate(args[1:]) if bot == "human"}
    assert re.search(rb"\x1b\[[0-9;]*31m", term.raw), "red cards in colour on a terminal"


def test_q_leaves_with_status_0_and_one_line():
    term = Terminal("duke_of_york", "human", "random", "--seed", "2")
    for typed in ["take:1", "2"]:  # the two moves of the leader's exchange; the dealer's two follow
        assert term.turn() is not None
        term.type(typed)
    assert "move 5 · seat 0 (you) to play" in term.turn()
    term.type("q")
    assert term.finish() == 0
    assert term.tail.strip().splitlines()[-1] == "seat 0 (human) left the game at move 5"


def test_ctrl_d_leaves_with_status_0():
    term = Terminal("caterpillar", "random", "human", "--seed", "5")
    screen = term.turn()
    assert "since your last turn:" in screen and "seat 0 played" in screen  # the opponent's first card
    os.write(term.fd, b"\x04")  # Ctrl-D on an empty line: end of input
    assert term.finish() == 0
    assert term.tail.strip().splitlines()[-1] == "seat 1 (human) left the game at move 2"


def test_no_colour_with_no_color_on_a_terminal():
    term = Terminal("give_or_take", "human", "random", "--seed", "4", env={"NO_COLOR": "1"})
    assert term.turn() is not None
    term.type("q")
    assert term.finish() == 0
    assert b"\x1b[" not in term.raw


def test_no_colour_when_stdout_is_not_a_terminal():
    env = {**os.environ, "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    env.pop("FORCE_COLOR", None)
    done = subprocess.run([sys.executable, "-m", "arena.cli", "play", "caterpillar", "human", "random", "--seed", "5"],
                          input="1\n" * 20, capture_output=True, text=True, cwd=ROOT, env=env, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "\x1b[" not in done.stdout and "moves:" in done.stdout and "result: " in done.stdout


def visible_cards(game: str, obs) -> set[str]:
    """Every card the observation shows this seat."""
    if game == "caterpillar":
        found = [*obs.hand, *obs.caterpillar]
    elif game == "give_or_take":
        found = [*obs.hand, obs.turn_up, *(c for _, c, _ in obs.played)]
    elif game == "go_for_it":
        found = [*obs.row, *(c for pile in obs.pile_known for c in pile), *(c for won in obs.winnings for c in won)]
    else:
        found = [*obs.hand, *obs.table, obs.taken, *(c for _, c in obs.played),
                 *(c for plays in obs.earlier for _, c in plays), *(m[1] for _, m in obs.moves if m[0] != "take")]
    return {NAME[c] for c in found if c is not None}


class Answers(io.StringIO):
    """A stdin that answers every prompt with a random move number (seeded: the test replays)."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.rng = random.Random(seed)
        self.legal = 1

    def readline(self, *args) -> str:
        return f"{self.rng.randint(1, self.legal)}\n"


@pytest.mark.parametrize(("game_id", "rules"), [
    ("caterpillar", {}), ("give_or_take", {"multiply": True}), ("go_for_it", {"players": 3, "jokers": True}),
    ("duke_of_york", {})])
def test_the_screen_shows_only_what_the_observation_holds(game_id, rules):
    """Every card printed at a human turn is one its observation shows: no other seat's hand, no stock,
    no table card it did not put there, whatever the state holds."""
    game = get_game(game_id)
    rules = make_rules(game.Rules, rules)
    for seed in range(3):
        out = io.StringIO()
        answers = Answers(seed)
        human = HumanBot(stdin=answers, console=Console(file=out, width=120, color_system=None))
        human.reset(game_id, 0, rules, random.Random(seed))
        rng = random.Random(seed)
        state = game.new_state(rules, seed)
        turns = 0
        while (seat := game.to_move(state)) is not None:
            obs = game.observe(state, seat)
            if seat == 0:
                answers.legal = len(obs.legal_moves)
                start = len(out.getvalue())
                move = human.act(obs)
                printed = set(CARD_RE.findall(out.getvalue()[start:]))
                assert printed <= visible_cards(game_id, obs), printed - visible_cards(game_id, obs)
                turns += 1
            else:
                move = rng.choice(obs.legal_moves)
            game.apply(state, move)
        assert turns > 0


def test_play_gives_the_referee_no_move_clock(monkeypatch):
    """`arena play` passes no move_time_limit, so the referee runs no clock and a human may take all day."""
    from arena.tournament import referee

    calls = []
    real = referee.play

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(referee, "play", spy)
    result = CliRunner().invoke(app, ["play", "caterpillar", "human", "random", "--seed", "5"], input="1\n" * 20)
    assert result.exit_code == 0, result.output
    assert calls and all(kwargs.get("move_time_limit") is None for kwargs in calls)
    assert "result: " in result.output


def test_leave_game_is_not_a_crash_forfeit():
    """LeaveGame passes through the referee's `except Exception` (it would otherwise be a `crash`)."""
    assert not issubclass(LeaveGame, Exception)


def test_human_is_only_for_arena_play():
    from arena.bots import BotError, load_bot_class
    from arena.config import ConfigError, parse_config

    with pytest.raises(BotError, match="unknown bot 'human'"):
        load_bot_class("human")
    config = ('name = "t"\nseed = 1\n[[games]]\ngame = "caterpillar"\ndeals = 1\n'
              '[[bots]]\nname = "human"\n[[bots]]\nname = "random"\n')
    with pytest.raises(ConfigError, match="unknown bot 'human'"):
        parse_config(config)


def test_html_writes_a_replay_page(tmp_path):
    page = tmp_path / "game.html"
    result = CliRunner().invoke(app, ["play", "caterpillar", "human", "random", "--seed", "5", "--html", str(page)],
                                input="1\n" * 20)
    assert result.exit_code == 0, result.output
    assert page.is_file() and page.stat().st_size > 0 and f"wrote {page}" in result.output
