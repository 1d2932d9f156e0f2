"""Zoo: a Caterpillar bot that finds the referee's game state with gc.get_objects() and plays
knowing the other hand and the stock.

In process, nothing stops this: every object of the interpreter is reachable from the bot's code.
Only running the bot in another process (isolation) hides the state from it.
"""

import gc

from arena.bots import Bot
from arena.games import get_game

CAT = get_game("caterpillar")


def knowing_move(state, seat):
    """The legal move whose worst outcome after the opponent's reply is best, seeing every card."""
    def lead(s):
        return s.scores[seat] - s.scores[1 - seat]

    best, best_value = None, None
    for move in CAT.legal_moves(state):
        after = CAT.clone(state)
        CAT.apply(after, move)
        value = lead(after)
        if CAT.to_move(after) is not None:
            replies = []
            for reply in CAT.legal_moves(after):
                again = CAT.clone(after)
                CAT.apply(again, reply)
                replies.append(lead(again))
            value = min(replies)
        if best_value is None or value > best_value:
            best, best_value = move, value
    return best


class PeeksGcBot(Bot):
    """Caterpillar: finds the real state among all objects, notes the hidden hand, plays on it."""

    name = "zoo-peeks-gc"
    games = {"caterpillar"}
    sightings: list = []
    """(cards played so far, the opponent's hand as seen), one per move, in this process."""

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        self.state = None

    def act(self, observation):
        if self.state is None:  # one search per game: the referee keeps the same state object
            self.state = next((o for o in gc.get_objects() if type(o) is CAT.State and self.matches(o, observation)),
                              None)
        if self.state is None:
            return self.rng.choice(observation.legal_moves)
        PeeksGcBot.sightings.append((observation.caterpillar, tuple(self.state.hands[1 - self.seat])))
        return knowing_move(self.state, self.seat)

    def matches(self, state, observation):
        """True for the state this observation was made from: Caterpillar hands out its own tuple of legal
        moves, so identity tells the live state from an equal one left over from another game."""
        return getattr(state, "legal", None) is observation.legal_moves
