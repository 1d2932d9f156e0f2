"""Arena's games as OpenSpiel games, and arena bots that search them with OpenSpiel's algorithms.

`openspiel_game(game_id, **rules)` is the game as an OpenSpiel Python game, registered with pyspiel as
`python_arena_<game_id>`; the rules options are its game parameters, with arena's defaults, so
`pyspiel.load_game("python_arena_go_for_it", {"players": 3})` works as well once this module is imported.

- **Chance.** Arena deals everything from one seed and nothing is left to chance after that (Give or Take's
  later deals come from the same seed). So the game has exactly one chance node, the root: it picks one of
  `DEALS` (1000) deal seeds, `0 .. DEALS - 1`, all equally likely, and the arena game dealt from that seed
  follows with no further chance. A state may also be made from any arena state (`ArenaGame.state_of`):
  the bots search from worlds that `sample_world` deals, past the root and with an empty history.
- **Players** are arena's seats; a seat may decide several times in a row. **Returns** are zero until the
  end, then from the final ranks: `(seats ranked below - seats ranked above) / (n - 1)`, zero-sum, in [-1, 1].
- **Actions** are the action ids of `arena.interop.encoding`, and a chance outcome is the deal seed itself.
- **Observations.** Every string and tensor of a player comes from arena's observation of that player
  (`observe`) and nothing else. Both tensors are the encoding's vector. The observation string is the
  encoding's text; the information-state string is that text followed by the observation's exact contents
  (every field but the rules, which the game fixes), so that two different observations never share one.
  Arena's observation is what a seat knows now, which is not always all it has seen (Give or Take keeps only
  the plays of the deal in progress; Go For It shows the position, not how it came about): an information
  state here is that observation, not the whole history of a perfect-recall information state. Before the
  deal the tensors are zeros.
- **Resampling.** `resample_from_infostate(player, sampler)` deals a world with arena's `sample_world` on the
  player's observation, from a seed drawn with `sampler`: the same sampler draws give the same world, which
  is what keeps OpenSpiel's ISMCTS deterministic given its random state.

Bots: `openspiel:ismcts` (OpenSpiel's ISMCTSBot) and `openspiel:mcts` (its MCTSBot on worlds dealt by
`sample_world`), both with random rollouts. All their randomness comes from the rng arena gives in `reset`.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from functools import cache
from typing import Any, ClassVar

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from arena.bots import Bot, BotError
from arena.games import GAME_IDS, get_game, make_rules
from arena.interop.encoding import encoding

__all__ = ["DEALS", "ArenaGame", "ArenaState", "IsmctsBot", "MctsBot", "openspiel_bot_class", "openspiel_game",
           "short_name"]

DEALS = 1000
"""The number of deal seeds the root chance node chooses among."""

MAX_DECISIONS = {
    "caterpillar": lambda rules: 26,  # 26 plays at most
    "give_or_take": lambda rules: 12 * rules.max_deals,  # 12 plays a deal
    "go_for_it": lambda rules: rules.max_decisions,
    "duke_of_york": lambda rules: 5 * (4 + 10),  # 5 rounds of 4 exchange moves and at most 10 plays
}
"""The most decisions a game can have under its rules: OpenSpiel's max_game_length."""

SEED_SCALE = 2 ** 53
"""A sampler's draw in [0, 1) times this is the seed of a resampled world (a float has 53 bits)."""


def short_name(game_id: str) -> str:
    """The name under which the game is registered with pyspiel."""
    return f"python_arena_{game_id}"


def openspiel_game(game_id: str, **rules: Any) -> ArenaGame:
    """The OpenSpiel game `python_arena_<game_id>` under these rules options (arena's defaults for the rest)."""
    return _loaded(game_id, make_rules(get_game(game_id).Rules, rules))


@cache
def _loaded(game_id: str, rules: Any) -> ArenaGame:
    """One OpenSpiel game per game and rules (rules are frozen dataclasses: they hash by value)."""
    return pyspiel.load_game(short_name(game_id), dataclasses.asdict(rules))


class _Variant:
    """A game under one set of rules: the arena game module, the rules and their encoding."""

    def __init__(self, game_id: str, rules: Any) -> None:
        self.game = get_game(game_id)
        self.rules = rules
        self.encoding = encoding(game_id, **dataclasses.asdict(rules))
        self.players = self.game.players(rules)
        fields = self.game.Observation._fields
        self.contents = tuple(i for i, name in enumerate(fields) if name != "rules")
        """The observation's fields that an information-state string spells out: all but the rules."""

    def __reduce__(self) -> tuple:
        """Pickled (as OpenSpiel serializes a state) by game id and rules."""
        return _Variant, (self.game.id, self.rules)


class _Position:
    """An arena state (None before the deal) with its variant, and the strings built from it so far.

    OpenSpiel clones a Python state by deep-copying its attributes: a position's deep copy clones the arena
    state through the game module and shares the variant.
    """

    __slots__ = ("variant", "world", "_observations", "_info_states")

    def __init__(self, variant: _Variant, world: Any = None) -> None:
        self.variant = variant
        self.world = world
        self._observations: dict[int, Any] = {}
        self._info_states: dict[int, str] = {}

    def __deepcopy__(self, memo: dict) -> _Position:
        world = self.world
        return _Position(self.variant, None if world is None else self.variant.game.clone(world))

    def __reduce__(self) -> tuple:
        """Pickled (as OpenSpiel serializes a state) without what was built from the world."""
        return _Position, (self.variant, self.world)

    def changed(self) -> None:
        """Forgets what was built from the world before it changed."""
        self._observations.clear()
        self._info_states.clear()

    def observation(self, player: int) -> Any:
        """Arena's observation of `player`, or None before the deal."""
        if self.world is None:
            return None
        observation = self._observations.get(player)
        if observation is None:
            observation = self._observations[player] = self.variant.game.observe(self.world, player)
        return observation

    def info_state(self, player: int) -> str:
        """The information-state string: the observation's text, then its exact contents but the rules."""
        text = self._info_states.get(player)
        if text is None:
            observation = self.observation(player)
            if observation is None:
                text = f"seat {player} | before the deal"
            else:
                contents = tuple(observation[i] for i in self.variant.contents)
                text = f"{self.variant.encoding.text(observation)}\n{contents!r}"
            self._info_states[player] = text
        return text


class ArenaGame(pyspiel.Game):
    """An arena game as an OpenSpiel game; one subclass per game id is registered with pyspiel."""

    game_id: ClassVar[str]

    def __init__(self, params: dict | None = None) -> None:
        params = dict(params or {})
        variant = _Variant(self.game_id, make_rules(get_game(self.game_id).Rules, params))
        info = pyspiel.GameInfo(
            num_distinct_actions=variant.encoding.num_actions,
            max_chance_outcomes=DEALS,
            num_players=variant.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_DECISIONS[self.game_id](variant.rules))
        super().__init__(_game_type(self.game_id), info, params)
        self.variant = variant

    def new_initial_state(self) -> ArenaState:
        """The root: the chance node that picks the deal seed."""
        return ArenaState(self)

    def state_of(self, world: Any) -> ArenaState:
        """A state holding the arena state `world` (which it then owns), past the root and with no history."""
        state = ArenaState(self)
        state._position = _Position(self.variant, world)
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> _Observer:
        """The observer of a player's own view (arena's observation): the default observation, or, when
        `iig_obs_type` asks for perfect recall, the information state. Nothing else can be built from it."""
        if isinstance(iig_obs_type, dict):  # pyspiel's C++ side passes only the params when no type is asked for
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if iig_obs_type is None:
            return _Observer(self.variant, info_state=False)
        if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError("only a player's own observation is available (public and that player's private info)")
        return _Observer(self.variant, info_state=iig_obs_type.perfect_recall)

    def max_chance_nodes_in_history(self) -> int:
        """The root is the only chance node."""
        return 1


class ArenaState(pyspiel.State):
    """A state of an arena game: the root chance node, or an arena state within the game."""

    _CHANCE_OUTCOMES = [(seed, 1.0 / DEALS) for seed in range(DEALS)]

    def __init__(self, game: ArenaGame) -> None:
        super().__init__(game)
        self._position = _Position(game.variant)

    @property
    def world(self) -> Any:
        """The arena state (None before the deal). Hidden cards and all: not for players."""
        return self._position.world

    def arena_observation(self, player: int) -> Any:
        """Arena's observation of `player` (None before the deal)."""
        return self._position.observation(player)

    def current_player(self) -> int:
        world = self._position.world
        if world is None:
            return pyspiel.PlayerId.CHANCE
        seat = self._position.variant.game.to_move(world)
        return pyspiel.PlayerId.TERMINAL if seat is None else seat

    def is_terminal(self) -> bool:
        world = self._position.world
        return world is not None and self._position.variant.game.to_move(world) is None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Every deal seed, equally likely."""
        return self._CHANCE_OUTCOMES

    def _legal_actions(self, player: int) -> list[int]:
        variant = self._position.variant
        return sorted(map(variant.encoding.action, variant.game.legal_moves(self._position.world)))

    def _apply_action(self, action: int) -> None:
        position = self._position
        variant = position.variant
        if position.world is None:
            position.world = variant.game.new_state(variant.rules, int(action))
        else:
            move = variant.encoding.move(action)
            if move not in variant.game.legal_moves(position.world):
                raise ValueError(f"illegal action {action} ({variant.game.move_to_str(move)})")
            variant.game.apply(position.world, move)
        position.changed()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal seed {action}"
        variant = self._position.variant
        return variant.game.move_to_str(variant.encoding.move(action))

    def returns(self) -> list[float]:
        """Zero until the end; then (seats ranked below - seats ranked above) / (n - 1) for each seat."""
        variant = self._position.variant
        if not self.is_terminal():
            return [0.0] * variant.players
        ranks = variant.game.result(self._position.world).ranks
        scale = len(ranks) - 1
        return [(sum(other > mine for other in ranks) - mine) / scale for mine in ranks]  # a rank: the seats above

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> ArenaState:
        """A state with the same information state for `player_id`, the hidden cards dealt by `sample_world`
        from a seed drawn with `probability_sampler` (a callable returning a float in [0, 1))."""
        observation = self._position.observation(player_id)
        if observation is None:  # before the deal nobody knows anything: the root is its own resample
            return self.clone()
        seed = int(probability_sampler() * SEED_SCALE)
        world = self._position.variant.game.sample_world(observation, random.Random(seed))
        return self.get_game().state_of(world)

    def __str__(self) -> str:
        """Every seat's observation, one a line (for debugging: it shows every hand)."""
        if self._position.world is None:
            return "before the deal"
        variant = self._position.variant
        return "\n".join(variant.encoding.text(self._position.observation(p)) for p in range(variant.players))


class _Observer:
    """OpenSpiel's observer of a player's own view: arena's observation as the encoding's vector, and as the
    encoding's text (observation) or as the information-state string."""

    def __init__(self, variant: _Variant, info_state: bool) -> None:
        self.info_state = info_state
        self.tensor = np.zeros(variant.encoding.shape, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ArenaState, player: int) -> None:
        observation = state.arena_observation(player)
        if observation is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = state._position.variant.encoding.vector(observation)

    def string_from(self, state: ArenaState, player: int) -> str:
        if self.info_state:
            return state._position.info_state(player)
        observation = state.arena_observation(player)
        if observation is None:
            return f"seat {player} | before the deal"
        return state._position.variant.encoding.text(observation)


def _game_type(game_id: str) -> pyspiel.GameType:
    game = get_game(game_id)
    return pyspiel.GameType(
        short_name=short_name(game_id),
        long_name=f"Arena {game_id.replace('_', ' ').title()}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dataclasses.asdict(game.Rules()))


# pyspiel keeps what it is given to make a game until the very end of the process; it must be a class (a
# function or partial left there is destroyed after Python is gone, and the process aborts on exit).
GAME_CLASSES: dict[str, type[ArenaGame]] = {
    game_id: type(f"{game_id.title().replace('_', '')}Game", (ArenaGame,), {"game_id": game_id, "__module__": __name__})
    for game_id in GAME_IDS
}
for _game_id, _game_class in GAME_CLASSES.items():
    pyspiel.register_game(_game_type(_game_id), _game_class)


class OpenSpielBot(Bot):
    """An arena bot that searches the OpenSpiel game with one of OpenSpiel's algorithms (`search`)."""

    games = None

    def reset(self, game_id: str, seat: int, rules: Any, rng: random.Random) -> None:
        super().reset(game_id, seat, rules, rng)
        self.game = get_game(game_id)
        self.spiel_game = _loaded(game_id, rules)
        self.encoding = self.spiel_game.variant.encoding
        # OpenSpiel's algorithms draw from a numpy RandomState: one seeded from arena's rng keeps games replayable.
        self.random_state = np.random.RandomState(rng.getrandbits(32))
        self.start()

    def start(self) -> None:
        """Prepares the search for a new game (after `reset` has set the game, rng and random state)."""

    def act(self, observation: Any) -> Any:
        moves = observation.legal_moves
        if len(moves) == 1:
            return moves[0]
        action = self.search(observation)
        return moves[[self.encoding.action(move) for move in moves].index(action)]

    def search(self, observation: Any) -> int:
        """The action id to play."""
        raise NotImplementedError

    def world(self, observation: Any) -> ArenaState:
        """A state dealt at random consistently with the observation (by arena's `sample_world`)."""
        return self.spiel_game.state_of(self.game.sample_world(observation, self.rng))


class IsmctsBot(OpenSpielBot):
    """OpenSpiel's information-set MCTS (ISMCTSBot) with random rollouts, resampling a world for every
    simulation through `resample_from_infostate`."""

    name = "openspiel-ismcts"
    defaults = {"max_simulations": 100, "uct_c": 2.0, "rollouts": 1, "max_world_samples": -1}
    """max_simulations per move; uct_c the UCT exploration constant (returns are in [-1, 1]); rollouts random
    playouts per leaf; max_world_samples the most distinct worlds per move (-1 for a new one every simulation)."""

    def start(self) -> None:
        params = self.params
        evaluator = mcts.RandomRolloutEvaluator(params["rollouts"], self.random_state)
        self.searcher = ismcts.ISMCTSBot(self.spiel_game, evaluator, params["uct_c"], params["max_simulations"],
                                         max_world_samples=params["max_world_samples"],
                                         random_state=self.random_state)
        # Left alone, ISMCTSBot resamples with a sampler seeded from the clock; this one draws from the random state.
        sampler = self.random_state.uniform
        self.searcher.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))

    def search(self, observation: Any) -> int:
        return int(self.searcher.step(self.world(observation)))


class MctsBot(OpenSpielBot):
    """OpenSpiel's MCTS (MCTSBot) with random rollouts, searching worlds dealt at random by `sample_world` as
    if all cards were seen; with several worlds, the action explored most over all of them."""

    name = "openspiel-mcts"
    defaults = {"max_simulations": 100, "uct_c": 2.0, "rollouts": 1, "worlds": 1}
    """max_simulations per world; uct_c the UCT exploration constant (returns are in [-1, 1]); rollouts random
    playouts per leaf; worlds the worlds searched per move."""

    def start(self) -> None:
        params = self.params
        evaluator = mcts.RandomRolloutEvaluator(params["rollouts"], self.random_state)
        self.searcher = mcts.MCTSBot(self.spiel_game, params["uct_c"], params["max_simulations"], evaluator,
                                     random_state=self.random_state)

    def search(self, observation: Any) -> int:
        visits: Counter[int] = Counter()
        rewards: Counter[int] = Counter()
        for _ in range(self.params["worlds"]):
            root = self.searcher.mcts_search(self.world(observation))
            for child in root.children:
                visits[child.action] += child.explore_count
                rewards[child.action] += child.total_reward
        # most visits, then the higher total reward, then the lower action id
        return min(visits, key=lambda action: (-visits[action], -rewards[action], action))


ALGORITHMS: dict[str, type[OpenSpielBot]] = {"ismcts": IsmctsBot, "mcts": MctsBot}
"""The bots of the specs `openspiel:ALGO`."""


def openspiel_bot_class(algorithm: str) -> type[OpenSpielBot]:
    """The bot class of the spec `openspiel:<algorithm>`; raises BotError for an unknown algorithm."""
    try:
        return ALGORITHMS[algorithm]
    except KeyError:
        known = ", ".join(f"openspiel:{name}" for name in ALGORITHMS)
        raise BotError(f"unknown OpenSpiel algorithm {algorithm!r} (bots: {known})") from None
