"""ismcts: plays any game by single-observer information-set Monte Carlo tree search.

Cowling, Powley and Whitehouse (2012), SO-ISMCTS: every iteration deals the hidden cards at random
(`sample_world` on the observation), walks one tree of move sequences shared by all those worlds
(nodes for every seat's decisions), expands one move, plays out and backs up one reward per seat.
A node's statistics are from the point of view of the seat that made the move into it. Only moves
legal in the current world compete at a node, and UCB counts how often a move was *available*
rather than how often its parent was visited.

Three things make it stronger than the same search with uniformly random playouts to the end:

- Playout policy. A random playout misjudges a position where the game rewards a few precise plays.
  In the games of PLAYOUT_POLICIES a playout follows cheap rules of thumb instead, with some
  randomness left in: in Duke of York each side reaches 31 or 0 when it can and avoids leaving the
  other a card to do it, reading both hands of the sampled world (as if the hands were open, which
  measured much stronger than rules that read only the mover's hand); in Caterpillar each side
  plays the card that scores most less the most the other's reply can score, keeps its face
  cards, and makes the other court short only when that gains face cards, also reading both hands;
  in Give or Take the moves are random until the last three plays of the deal, which are searched
  exactly with both hands open (they score the deal's big points, for the last cards); in Go For It
  a won row is claimed unless it has six cards (a seventh wins it anyway), and the rules read only
  the row.
- Horizon. Where a game is a series of rounds scored on their own (ROUND_COUNTERS), a playout stops
  at the end of the round in which the search started and is judged by the scores then: the later
  rounds depend little on this round's moves, and playing them out costs time and adds only noise.
  Go For It and Caterpillar are judged after a few moves of playout (their rollout_cap in
  GAME_DEFAULTS): a longer playout measured no better for the time it costs. A playout stopped by
  the cap is judged by the scores as they stand (EVALUATIONS: in Caterpillar, with 100 for each face
  card still in hand, as at a normal end).
- Prior. The bundled heuristic bot's choice at the root (one call per decision) is expanded first
  and gets a bonus of `prior / (visits + 1)` in the root's UCB, so the search starts from a good
  move and leaves it for one that proves better. The weight is per game: in Caterpillar, where the
  heuristic is much the stronger of the two, the search leaves its move only on strong evidence.

Some defaults depend on the game (GAME_DEFAULTS): the iterations, chosen so that a move takes about
as long as 200 iterations of the plain search with random playouts did, and the playout cap and
prior weight that measured best. The budget counts iterations, never time, so that a game replays
exactly.
"""

from math import log, sqrt
from pathlib import Path
from time import perf_counter

from arena.bots import Bot, can_play, load_spec
from arena.cards import DECK, IS_FACE, RANK, SUIT
from arena.games import get_game

GAME_DEFAULTS = {
    "caterpillar": {"iterations": 200, "rollout_cap": 8, "prior": 10.0},
    "give_or_take": {"iterations": 300, "rollout_cap": 400, "prior": 3.0},
    "go_for_it": {"iterations": 400, "rollout_cap": 8, "prior": 1.0},
    "duke_of_york": {"iterations": 450, "rollout_cap": 400, "prior": 1.0},
}
"""The values of the parameters left at None, by game; OTHER_GAMES in any other game."""
OTHER_GAMES = {"iterations": 200, "rollout_cap": 400, "prior": 1.0}

ROUND_COUNTERS = {"duke_of_york": "round", "give_or_take": "deal"}
"""The attribute (of the state and of the observation) that counts the rounds, in the games whose
rounds (Give or Take's deals) are scored on their own."""


def duke_of_york_playout(world, legal, random):
    """Reach 31 (else 30) going up, 0 (else 1) going down, when a card does it; otherwise a card that
    leaves the opponent no card to do it, if there is one. The exchange is random."""
    if legal[0][0] != "play":
        return legal[int(random() * len(legal))]
    value, count = world.value, world.count
    theirs = {value[card] for card in world.hands[1 - world.turn]}
    if world.down:
        targets = (0, 1)
        after = [count - value[card] for _, card in legal]
        safe = [move for move, new in zip(legal, after, strict=True)
                if new not in theirs and new - 1 not in theirs]
    else:
        targets = (31, 30)
        after = [count + value[card] for _, card in legal]
        safe = [move for move, new in zip(legal, after, strict=True)
                if 31 - new not in theirs and 30 - new not in theirs]
    for target in targets:
        best = [move for move, new in zip(legal, after, strict=True) if new == target]
        if best:
            return best[int(random() * len(best))]
    pool = safe or legal
    return pool[int(random() * len(pool))]


PIP = tuple(0 if IS_FACE[c] else RANK[c] + 1 for c in DECK)
"""Caterpillar's pip value of each card (a face card adds nothing)."""


def caterpillar_playout(world, legal, random):
    """Each card is valued by the points it scores, less the most the opponent's reply can score
    (reading the other hand of the sampled world), less 60 for spending a face card; a card that
    leaves the opponent no legal card ends the game, and is valued by the face cards that changes
    hands. The best card is played, one time in ten a random one."""
    if len(legal) == 1 or random() < 0.1:
        return legal[int(random() * len(legal))]
    seat = world.turn
    hands = world.hands
    pips = [[], [], [], []]  # the opponent's numerals by suit
    face_suits = []  # the suit of each of its face cards
    for c in hands[1 - seat]:
        if IS_FACE[c]:
            face_suits.append(SUIT[c])
        else:
            pips[SUIT[c]].append(PIP[c])
    faces = len(face_suits) - sum(1 for c in hands[seat] if IS_FACE[c])
    total = world.total
    last = world.caterpillar[-1] if world.caterpillar else None
    best, best_value = None, None
    for card in legal:
        pip, suit = PIP[card], SUIT[card]
        if pip:
            new = total + pip
            value = new if new % 5 == 0 else 0
        else:
            new = total
            value = total if last is not None and suit == SUIT[last] and total % 5 == 0 else -60
        follow = pips[suit]
        if face_suits or follow:
            reply = new if new % 5 == 0 and suit in face_suits else 0
            for p in follow:
                if (new + p) % 5 == 0 and new + p > reply:
                    reply = new + p
            value -= reply
        else:  # court short: they score my face cards, and theirs never count
            value += 100 * (faces + (not pip))
        if best_value is None or value > best_value:
            best, best_value = card, value
    return best


def caterpillar_scores(world):
    """The scores, and while the game goes on 100 for each face card in a hand (as at a normal end)."""
    scores = list(world.scores)
    if world.mover is not None:
        for seat, hand in enumerate(world.hands):
            scores[seat] += 100 * sum(1 for c in hand if IS_FACE[c])
    return scores


GIVE_OR_TAKE = get_game("give_or_take")
ENDGAME_PLAYS = 3
"""In Give or Take, the plays left in a deal from which a playout plays the rest of it exactly."""


def give_or_take_playout(world, legal, random):
    """A random move, until the last ENDGAME_PLAYS plays of the deal: those are played exactly, with
    both hands of the sampled world open (they score the deal's big points, for the last cards)."""
    hands = world.hands
    if len(legal) == 1 or len(hands[0]) + len(hands[1]) > ENDGAME_PLAYS:
        return legal[int(random() * len(legal))]
    return _deal_end(world, world.deal)[1]


def _deal_end(world, deal):
    """(the margin of the seat to move at the end of this deal with best play, its best move)."""
    seat = world.mover
    clone, apply = GIVE_OR_TAKE.clone, GIVE_OR_TAKE.apply
    best, best_value = None, None
    for move in world.legal:
        after = clone(world)
        apply(after, move)
        if after.mover is None or after.deal != deal:
            scores = after.scores
            value = scores[seat] - scores[1 - seat]
        else:
            value = _deal_end(after, deal)[0]
            if after.mover != seat:
                value = -value
        if best_value is None or value > best_value:
            best, best_value = move, value
    return best_value, best


def go_for_it_playout(world, legal, random):
    """Claim a won row, except a row of six: a seventh card wins the row anyway (unless it is a
    joker), and with one more card. Otherwise play on a row of two or six, and on others more
    often than not; after a round of passes, play on rather than take up a long row."""
    n = len(world.row)
    if legal[1] == "claim":
        return "play" if n == 6 else "claim"
    if legal[1] == "pass":
        return "play" if n <= 2 or n == 6 or random() < 0.6 else "pass"
    return "play" if n >= 4 or random() < 0.5 else "take"


PLAYOUT_POLICIES = {"caterpillar": caterpillar_playout, "duke_of_york": duke_of_york_playout,
                    "give_or_take": give_or_take_playout, "go_for_it": go_for_it_playout}
"""Playout policies by game: (world, legal moves, random) -> move. Other games play out at random."""

EVALUATIONS = {"caterpillar": caterpillar_scores}
"""How a playout stopped by its cap is judged, by game: (world) -> scores. Other games: the scores."""


def random_playout(world, legal, random):
    """Any legal move."""
    return legal[int(random() * len(legal))]


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
    """SO-ISMCTS with rule-of-thumb playouts and a heuristic prior; a reward per seat from the ranks
    and scores where the playout ends."""

    name = "ismcts"
    games = None
    defaults = {
        "iterations": None,
        "time_limit": None,
        "c": 0.7,
        "rollout_cap": None,
        "score_weight": 0.2,
        "policy": "rules",
        "horizon": "round",
        "prior": None,
    }
    """iterations per move (when time_limit is None); time_limit in seconds per move (not
    deterministic); c the UCB exploration constant; rollout_cap the most moves in one playout (then
    the game is judged as it stands, by EVALUATIONS); score_weight the share of the reward that comes from the score
    margin rather than the rank; policy "rules" (PLAYOUT_POLICIES, random in other games) or
    "random" for the playouts; horizon "round" (a playout ends with the round, in the games of
    ROUND_COUNTERS) or "game"; prior the weight of the bonus for the heuristic bot's move at the root
    (0: no prior, and no heuristic call). None: the game's value in GAME_DEFAULTS. With
    iterations 200, rollout_cap 400, policy "random", horizon "game" and prior 0 this is plain
    SO-ISMCTS with random playouts."""

    def reset(self, game_id, seat, rules, rng):
        super().reset(game_id, seat, rules, rng)
        self.game = get_game(game_id)
        game_defaults = GAME_DEFAULTS.get(game_id, OTHER_GAMES)
        params = self.settings = {key: game_defaults[key] if value is None and key in game_defaults else value
                                  for key, value in self.params.items()}
        """The parameters with the game's defaults filled in."""
        self.playout = PLAYOUT_POLICIES.get(game_id, random_playout) if params["policy"] == "rules" else random_playout
        self.round_counter = ROUND_COUNTERS.get(game_id) if params["horizon"] == "round" else None
        self.adviser = None
        if params["prior"]:
            heuristic = load_spec(f"{Path(__file__).with_name('heuristic.py')}:HeuristicBot")
            if can_play(heuristic, game_id):
                self.adviser = heuristic()
                self.adviser.reset(game_id, seat, rules, rng)

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
        params = self.settings
        game, rng = self.game, self.rng
        sample_world, legal_moves, apply, to_move = game.sample_world, game.legal_moves, game.apply, game.to_move
        random = rng.random
        playout = self.playout
        evaluate = EVALUATIONS.get(self.game_id, game.scores)
        c, cap = params["c"], params["rollout_cap"]
        iterations, time_limit = params["iterations"], params["time_limit"]
        deadline = perf_counter() + time_limit if time_limit is not None else None
        hint = self.adviser.act(observation) if self.adviser is not None else None
        prior = params["prior"]
        counter = self.round_counter
        start_round = getattr(observation, counter) if counter is not None else None
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
                if untried:  # expansion: one new node (the hint first, at the root), then play out
                    if node is root and hint in untried:
                        move = hint
                    else:
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
                    if m == hint and node is root:
                        value += prior / (n + 1)
                    if value > best_value:
                        best, best_value = child, value
                        move = m
                apply(world, move)
                node = best
                path.append(node)
            # Playout: to the end (of the round, with that horizon), or until the cap (then the game
            # is judged as it stands).
            steps = 0
            while steps < cap and to_move(world) is not None:
                if counter is not None and getattr(world, counter) != start_round:
                    break
                apply(world, playout(world, legal_moves(world), random))
                steps += 1
            rewards = self.rewards(evaluate(world))
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
