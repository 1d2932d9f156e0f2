"""greedy: plays any game, taking the move with the best immediate gain for itself.

The gain of a move is how much it raises the bot's own score against the others' (own change
minus the mean change of the other seats), measured by playing the move once in a world sampled
from the observation. Ties are broken at random with the bot's rng.
"""

from arena.bots import Bot
from arena.games import get_game


class GreedyBot(Bot):
    """One-move lookahead on a sampled world."""

    name = "greedy"
    games = None

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        self.game = get_game(game_id)

    def act(self, observation):
        moves = observation.legal_moves
        if len(moves) == 1:
            return moves[0]
        game, seat = self.game, observation.seat
        world = game.sample_world(observation, self.rng)
        before = game.scores(world)
        best, best_gain = [], None
        for move in moves:
            after_world = game.clone(world)
            game.apply(after_world, move)
            after = game.scores(after_world)
            changes = [a - b for a, b in zip(after, before, strict=True)]
            others = (sum(changes) - changes[seat]) / (len(changes) - 1)
            gain = changes[seat] - others
            if best_gain is None or gain > best_gain:
                best, best_gain = [move], gain
            elif gain == best_gain:
                best.append(move)
        return best[0] if len(best) == 1 else self.rng.choice(best)
