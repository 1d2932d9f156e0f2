"""The referee: faults become forfeits (docs/untrusted-bots.md) and transcripts replay."""

import time

import pytest

from arena.bots import Bot, load_bot_class
from arena.games import get_game, make_rules
from arena.tournament import referee

CAT = get_game("caterpillar")
RANDOM = load_bot_class("random")


class Raises(Bot):
    name = "raises"

    def act(self, observation):
        if len(observation.caterpillar) >= 4:
            raise RuntimeError("boom")
        return observation.legal_moves[0]


class RaisesInReset(Bot):
    name = "raises-in-reset"

    def reset(self, *args):
        raise KeyError("no")


class Lookalike:
    """Equal to everything: must not pass for a legal move."""

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def returning(value):
    class Returns(Bot):
        name = "returns"

        def act(self, observation):
            return value(observation) if callable(value) else value

    return Returns


def burn(seconds):
    """Spends `seconds` of this thread's CPU time."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


class Slow(Bot):
    name = "slow"

    def act(self, observation):
        burn(0.05)
        return observation.legal_moves[0]


def play(bots, seed=5, **kwargs):
    return referee.play(CAT, CAT.Rules(), bots, seed, **kwargs)


def test_a_bot_that_raises_forfeits_and_ranks_last():
    played = play([RANDOM(), Raises()])
    assert played.outcome.termination == "crash" and played.fault_seat == 1
    assert played.fault == "RuntimeError: boom"
    assert played.outcome.ranks == (0, 1)
    assert played.outcome.scores == tuple(CAT.scores(played.state))
    assert len(CAT.deals(played.state)[0][1]) == 5  # the faulting decision left no move


def test_a_fault_at_the_start_leaves_the_layout_and_no_moves():
    played = play([RaisesInReset(), RANDOM()])
    data = referee.transcript(CAT, CAT.Rules(), ["raises-in-reset", "random"], 5, played)
    assert data["termination"] == "crash" and data["fault_seat"] == 0 and data["ranks"] == [1, 0]
    assert data["deals"][0]["moves"] == [] and len(data["deals"][0]["layout"]["stock"]) == 26


@pytest.mark.parametrize("value", [None, "7H", True, 3.0, Lookalike(), (lambda o: 52), (lambda o: [o.legal_moves[0]])],
                         ids=["None", "a string", "a bool", "a float", "a look-alike", "no such card", "a list"])
def test_garbage_is_an_illegal_move(value):
    played = play([returning(value)(), RANDOM()])
    assert played.outcome.termination == "illegal_move" and played.fault_seat == 0
    assert played.outcome.ranks == (1, 0)


def test_a_card_not_in_hand_is_an_illegal_move():
    played = play([returning(lambda o: next(c for c in range(52) if c not in o.hand))(), RANDOM()])
    assert played.outcome.termination == "illegal_move"


def test_a_move_over_the_time_limit_is_a_timeout():
    played = play([RANDOM(), Slow()], move_time_limit=0.01)
    assert played.outcome.termination == "timeout" and played.fault_seat == 1


def test_forfeit_ranks_the_others_among_themselves():
    game = get_game("go_for_it")
    rules = make_rules(game.Rules, {"players": 4})
    bots = [RANDOM(), RANDOM(), returning(None)(), RANDOM()]
    for seed in range(20):
        played = referee.play(game, rules, bots, seed)
        if played.fault_seat is not None:
            break
    scores, ranks = played.outcome.scores, played.outcome.ranks
    assert ranks[2] == 3
    for seat in (0, 1, 3):
        assert ranks[seat] == sum(1 for other in (0, 1, 3) if scores[other] > scores[seat])


def test_the_bots_rng_is_seeded_by_the_game_seed():
    a = referee.transcript(CAT, CAT.Rules(), ["r", "r"], 9, play([RANDOM(), RANDOM()], seed=9))
    b = referee.transcript(CAT, CAT.Rules(), ["r", "r"], 9, play([RANDOM(), RANDOM()], seed=9))
    c = referee.transcript(CAT, CAT.Rules(), ["r", "r"], 9, play([RANDOM(), RANDOM()], seed=9,
                                                                seeds=[1, 2]))
    assert a == b and a["deals"][0]["layout"] == c["deals"][0]["layout"]


class BusyLoop(Bot):
    name = "busy"

    def act(self, observation):
        while True:
            pass


class Sleeps(Bot):
    name = "sleeps"

    def act(self, observation):
        time.sleep(30)


class Swallows(Bot):
    name = "swallows"

    def act(self, observation):
        end = time.perf_counter() + 0.3
        while time.perf_counter() < end:
            try:
                time.sleep(0.01)
            except BaseException:
                pass
        return observation.legal_moves[0]


@pytest.mark.parametrize("hog", [BusyLoop, Sleeps, Swallows])
def test_the_time_limit_preempts_a_move(hog):
    """A busy loop runs out of CPU time (its backstop, 5 s, is left to a loaded machine); a sleep, or a bot that
    swallows the signal while it sleeps, runs out of the wall-clock backstop (here twice the limit)."""
    started = time.perf_counter()
    played = play([RANDOM(), hog()], move_time_limit=0.1, wall_backstop=50 if hog is BusyLoop else 2)
    assert played.outcome.termination == "timeout" and played.fault_seat == 1
    assert played.fault == ("no move within 0.1s" if hog is BusyLoop else "no move within 0.2s of wall time")
    assert time.perf_counter() - started < (5.0 if hog is BusyLoop else 2.0)  # room for a loaded machine
    after = play([RANDOM(), RANDOM()], move_time_limit=0.1)  # the clock leaves later games alone
    assert after.fault_seat is None


class Steady(Bot):
    """Spends `seconds` of CPU time on every move, after sleeping `sleep` seconds."""

    name = "steady"
    defaults = {"seconds": 0.0, "sleep": 0.0}

    def act(self, observation):
        time.sleep(self.params["sleep"])
        burn(self.params["seconds"])
        return observation.legal_moves[0]


def test_each_move_has_the_whole_limit():
    """Moves are told apart: eight moves of 0.06 s of CPU time each take longer than the 0.1 s limit together,
    and none of them is a timeout; a move of 0.3 s is one."""
    played = play([Steady(seconds=0.06), RANDOM()], move_time_limit=0.1)
    assert played.fault_seat is None and played.decisions > 16
    slow = play([RANDOM(), Steady(seconds=0.3)], move_time_limit=0.1)
    assert slow.outcome.termination == "timeout" and slow.fault_seat == 1 and slow.decisions == 1


def test_the_backstop_times_each_move_from_when_it_first_sees_it():
    from arena.isolation.clock import BACKSTOP_GRACE, MoveWatch, new_board

    board = new_board(0.05)
    watch = MoveWatch(board)
    board[0] = 1
    assert not watch.overrun()
    for ticket in range(2, 8):  # moves that follow one another, each shorter than the allowance
        time.sleep((0.05 + BACKSTOP_GRACE) / 4)
        board[0] = ticket
        assert not watch.overrun()
    time.sleep(0.05 + BACKSTOP_GRACE + 0.05)  # the same move, past it
    assert watch.overrun()
    board[0] = 0
    assert not watch.overrun() and not watch.overrun()


def test_the_limit_counts_cpu_time_and_the_slowest_move_is_recorded():
    """A move that sleeps 0.3 s and spends 0.05 s of CPU time is within a limit of 0.1 s of CPU time (a wall-clock
    backstop of 5 s leaves room for a loaded machine); the game records its slowest move's CPU and wall time, as the
    watchdog timed it (from when it first saw the move, within a period of 5 ms here)."""
    played = play([Steady(seconds=0.05, sleep=0.3), RANDOM()], move_time_limit=0.1, wall_backstop=50)
    assert played.fault_seat is None and played.decisions > 20
    cpu, wall = played.slowest
    assert 0.04 < cpu < 0.1 and wall > 0.3
    assert play([RANDOM(), RANDOM()]).slowest is None  # no move time limit: not timed
