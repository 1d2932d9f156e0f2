"""expert: the heuristic bot's strategies, searching wider where that measured stronger.

Duke of York: the heuristic plays each card by determinized search (PIMC): it deals the opponent
hands from the unseen cards (leaving out, for an opponent who turned the play down, the cards that
would have fitted under 31), solves the rest of the round exactly in each (its own best play; the
opponent's best with weight `wary`, else the average of its fitting cards), and plays the card with
the best total margin. It searches over 8 hands once seven cards or fewer are left in the two hands,
and plays a rule of thumb before. expert searches over `iterations` hands (24) from nine cards, so
from the dealer's first card of every round: `arena match duke_of_york expert heuristic` measures
it (docs/expert.md). Searching all ten cards costs about four times as much a decision, which the
default clock allows but the budget of docs/expert.md does not; pure minimax (alpha-beta, wary 1)
measured no better than the heuristic.

Caterpillar, Give or Take and Go For It: the heuristic's strategy as it is; nothing tried within the
budget of a move beat it (docs/expert.md gives the figures).

The budget counts sampled hands, never time, and every choice reads only the observation and the
bot's rng: a game replays bit for bit.
"""

from __future__ import annotations

import sys
from pathlib import Path

from arena.bots import Bot, load_spec

_heuristic = sys.modules[load_spec(f"{Path(__file__).with_name('heuristic.py')}:HeuristicBot").__module__]

STRATEGIES = _heuristic.STRATEGIES
GAMES = _heuristic.GAMES

SEARCH_CARDS = {"duke_of_york": 9}
"""Duke of York: search once the two hands hold this many cards or fewer (the heuristic: 7)."""


class ExpertBot(Bot):
    """The heuristic's strategy per game, with Duke of York's search over more hands and from more cards."""

    name = "expert"
    games = set(GAMES)
    defaults = {"iterations": 24}
    """iterations: the opponent hands Duke of York's search deals per decision (the heuristic: 8)."""

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        strategy = STRATEGIES[game_id]
        self.strategy = strategy.move
        self.strategy_params = dict(strategy.DEFAULTS)
        if game_id == "duke_of_york":
            self.strategy_params.update(samples=self.params["iterations"], search_cards=SEARCH_CARDS[game_id])

    def act(self, observation):
        return self.strategy(observation, self.strategy_params, self.rng)

