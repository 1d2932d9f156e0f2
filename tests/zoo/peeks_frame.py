"""Zoo: a Caterpillar bot that reads the referee's local `state` through sys._getframe and plays
knowing the other hand and the stock.

In process, nothing stops this: a bot's code runs on the referee's stack. Only running the bot in
another process (isolation) hides the state from it.
"""

import sys

from arena.bots import Bot
from arena.games import get_game

CAT = get_game("caterpillar")


def referee_state():
    """The nearest `state` local of a caller that also has a `game` local (the referee's loop), or None."""
    frame = sys._getframe(1)
    while frame is not None:
        found = frame.f_locals
        if "state" in found and "game" in found:
            return found["state"]
        frame = frame.f_back
    return None


def greedy_move(state, seat):
    """The legal move that scores most now (ties: the first), seeing every card."""
    def gain(move):
        after = CAT.clone(state)
        CAT.apply(after, move)
        return after.scores[seat] - after.scores[1 - seat]

    return max(CAT.legal_moves(state), key=gain)


class PeeksFrameBot(Bot):
    """Caterpillar: reads the referee's state from its caller's frame, notes the hidden hand, plays on it."""

    name = "zoo-peeks-frame"
    games = {"caterpillar"}
    sightings: list = []
    """(cards played so far, the opponent's hand as seen), one per move, in this process."""

    def act(self, observation):
        state = referee_state()
        if state is None:
            return self.rng.choice(observation.legal_moves)
        PeeksFrameBot.sightings.append((observation.caterpillar, tuple(state.hands[1 - self.seat])))
        return greedy_move(state, self.seat)
