"""ismcts: plays any game by single-observer information-set Monte Carlo tree search.

Cowling, Powley and Whitehouse (2012), SO-ISMCTS: every iteration deals the hidden cards at random
(`sample_world` on the observation), walks one tree of move sequences shared by all those worlds
(nodes for every seat's decisions), expands one move, plays out at random and backs up one reward
per seat. A node's statistics are from the point of view of the seat that made the move into it.
Only moves legal in the current world compete at a node, and UCB counts how often a move was
*available* rather than how often its parent was visited.
"""

from math import log, sqrt
from time import perf_counter

from arena.bots import Bot
from arena.games import get_game


class Node:
    """A move sequence from the root: the seat that made its last move and that seat's statistics."""

    __slots__ = ("seat", "visits", "reward", "available", "children")

    def __init__(self, seat):
        self.seat = seat
        """The seat that played the move into this node (whose reward `reward` sums)."""
        self.visits = 0
        self.reward = 0.0
        self.available = 0
        """Iterations in which this node's move was legal at its parent (UCB's parent count)."""
        self.children = {}
        """Move -> Node."""


class IsmctsBot(Bot):
    """SO-ISMCTS with random rollouts; a reward per seat from the final ranks and scores."""

    name = "ismcts"
    games = None
    defaults = {
        "iterations": 200,
        "time_limit": None,
        "c": 0.7,
        "rollout_cap": 400,
        "score_weight": 0.2,
    }
    """iterations per move (when time_limit is None); time_limit in seconds per move (not deterministic);
    c the UCB exploration constant; rollout_cap the most random moves in one playout (then the game is
    judged as it stands); score_weight the share of the reward that comes from the score margin
    rather than the rank."""

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        self.game = get_game(game_id)

    def act(self, observation):
        moves = observation.legal_moves
        if len(moves) == 1:
            return moves[0]
        root = self.search(observation)
        best, best_visits = moves[0], -1
        for move in moves:  # in the observation's order, so ties break the same way every time
            child = root.children.get(move)
            visits = child.visits if child is not None else 0
            if visits > best_visits:
                best, best_visits = move, visits
        return best

    def search(self, observation):
        """The root of a search tree grown from `observation` for the configured budget."""
        params = self.params
        game, rng = self.game, self.rng
        sample_world, legal_moves, apply, to_move = game.sample_world, game.legal_moves, game.apply, game.to_move
        random = rng.random
        c, cap = params["c"], params["rollout_cap"]
        iterations, time_limit = params["iterations"], params["time_limit"]
        deadline = perf_counter() + time_limit if time_limit is not None else None
        root = Node(None)
        done = 0
        while True:
            if deadline is None:
                if done >= iterations:
                    break
            elif done and perf_counter() >= deadline:
                break
            done += 1
            world = sample_world(observation, rng)
            node, path = root, [root]
            # Selection: descend while every move legal here has been tried in some earlier world.
            while (seat := to_move(world)) is not None:
                legal = legal_moves(world)
                children = node.children
                untried = [m for m in legal if m not in children]
                if untried:  # expansion: one new node, then play out
                    move = untried[int(random() * len(untried))] if len(untried) > 1 else untried[0]
                    child = children[move] = Node(seat)
                    child.available = 1
                    for m in legal:
                        if m in children and m is not move:
                            children[m].available += 1
                    apply(world, move)
                    path.append(child)
                    break
                best, best_value = None, -1.0
                for m in legal:
                    child = children[m]
                    child.available += 1
                    n = child.visits
                    value = child.reward / n + c * sqrt(log(child.available) / n)
                    if value > best_value:
                        best, best_value = child, value
                        move = m
                apply(world, move)
                node = best
                path.append(node)
            # Playout: random moves to the end, or until the cap (then the game is judged as it stands).
            steps = 0
            while steps < cap and to_move(world) is not None:
                legal = legal_moves(world)
                apply(world, legal[int(random() * len(legal))])
                steps += 1
            rewards = self.rewards(game.scores(world))
            for node in path:
                node.visits += 1
                if node.seat is not None:
                    node.reward += rewards[node.seat]
        return root

    def rewards(self, scores):
        """Each seat's reward in [0, 1]: mostly its rank (win 1, draw 0.5, loss 0 with two players;
        the share of other seats beaten, ties counting half, with more), plus a little score margin."""
        weight = self.params["score_weight"]
        spread = sum(abs(s) for s in scores) + 1  # keeps the margin within [-1, 1] whatever the game's scale
        if len(scores) == 2:  # the common case, kept cheap: it runs once per iteration
            a, b = scores
            rank = 1.0 if a > b else 0.0 if a < b else 0.5
            margin = (a - b) / spread
            first = (1 - weight) * rank + weight * 0.5 * (1 + margin)
            return first, 1.0 - first
        n = len(scores)
        total = sum(scores)
        out = []
        for mine in scores:
            beaten = sum(1 for s in scores if s < mine) + 0.5 * (sum(1 for s in scores if s == mine) - 1)
            margin = (mine - (total - mine) / (n - 1)) / spread
            out.append((1 - weight) * beaten / (n - 1) + weight * 0.5 * (1 + margin))
        return out
