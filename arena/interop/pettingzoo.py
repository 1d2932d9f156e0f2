"""Arena's games as PettingZoo AEC environments: `pettingzoo_env(game_id, **rules)`.

- **Agents** `player_0 … player_{n-1}` sit in seats `0 … n-1`; `agent_selection` is the seat to move.
- **Actions** `Discrete(num_actions)` over the game's fixed move enumeration (`arena.interop.encoding`).
  An action that is not legal raises ValueError naming the move; nothing is silently replaced.
- **Observations** `{"observation": float32 vector, "action_mask": int8 vector}`, both built only from
  arena's observation of that seat. The mask is all zeros for an agent that is not to move.
- **Rewards** come only at the end, from the final ranks: with `n` seats,
  `reward_i = (seats ranked below i - seats ranked above i) / (n - 1)`, so each lies in [-1, 1] and they
  sum to zero. Two players: 1 for a win, -1 for a loss, 0 each for a draw. Every game end (`normal`,
  `court_short`, `deal_limit`, `move_limit`) is a termination for all agents, never a truncation; the
  last `infos` hold each seat's `termination`, `score` and `rank`.
- **Seeds.** `reset(seed=s)` deals exactly what `arena play GAME ... --seed s` deals (`game.new_state(rules,
  s)`); `reset()` without a seed draws the deal's seed from the environment's own `np_random`.
- `render_mode="ansi"`: `render()` returns the text of the observation of the agent to move.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from arena.interop.encoding import Encoding, encoding

__all__ = ["ArenaEnv", "pettingzoo_env", "rank_rewards"]


def pettingzoo_env(game_id: str, render_mode: str | None = None, **rules: Any) -> ArenaEnv:
    """A PettingZoo AEC environment of `game_id` under these rules options (values as `arena play --rule`)."""
    return ArenaEnv(encoding(game_id, **rules), render_mode=render_mode)


def rank_rewards(ranks: tuple[int, ...]) -> list[float]:
    """Each seat's reward from the final ranks: (seats ranked below - seats ranked above) / (n - 1)."""
    n = len(ranks)
    return [(sum(other > mine for other in ranks) - sum(other < mine for other in ranks)) / (n - 1)
            for mine in ranks]


class ArenaEnv(AECEnv):
    """One arena game as an AEC environment; see the module docstring for the conventions."""

    def __init__(self, encoding: Encoding, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.encoding = encoding
        self.game = encoding.game
        self.rules = encoding.rules
        self.render_mode = render_mode
        self.metadata = {"name": f"arena_{self.game.id}_v0", "render_modes": ["ansi"], "is_parallelizable": False}
        self.possible_agents = [f"player_{seat}" for seat in range(encoding.players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        # One space object per agent, kept, so that seeding an agent's space lasts (as PettingZoo expects).
        self.action_spaces = {agent: spaces.Discrete(encoding.num_actions) for agent in self.possible_agents}
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": spaces.Box(0.0, encoding.high, encoding.shape, np.float32),
                "action_mask": spaces.Box(0, 1, (encoding.num_actions,), np.int8),
            })
            for agent in self.possible_agents
        }
        self.np_random, self.np_random_seed = seeding.np_random()
        self.game_state = None
        """The arena game in progress (the full state, cards hidden from the players included)."""
        self.deal_seed: int | None = None
        """The seed of the current game, as `arena play --seed` takes it."""

    def observation_space(self, agent: str) -> spaces.Dict:
        """The observation vector and the action mask of `agent`."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """Every move of the game, by action id."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deals a new game from `seed` (as `arena play --seed`), or from a seed drawn from `np_random`."""
        if seed is not None:
            seed = operator.index(seed)  # a numpy integer too; the deal's own rng takes only a plain int
            # Gymnasium seeds only with naturals; a negative deal seed (which `arena play` takes) wraps round.
            self.np_random, self.np_random_seed = seeding.np_random(seed % 2**64)
        else:
            seed = int(self.np_random.integers(2**63))
        self.deal_seed = seed
        self.game_state = self.game.new_state(self.rules, seed)
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        self._after_move()

    def step(self, action: int | None) -> None:
        """Plays `action` for the agent to move; an agent that is done steps with None to leave."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seats[agent]
        if action is None:
            raise ValueError(f"{agent} is to move in {self.game.id}: an action is needed, not None")
        move = self.encoding.move(action)
        if move not in self.game.legal_moves(self.game_state):
            raise ValueError(f"illegal move {self.game.move_to_str(move)!r} (action {int(action)}) for {agent} "
                             f"(seat {seat}) in {self.game.id}")
        self.game.apply(self.game_state, move)
        self._cumulative_rewards[agent] = 0.0
        self._after_move()
        self._accumulate_rewards()

    def _after_move(self) -> None:
        """Selects the seat to move, or ends the game for everyone with the rank rewards."""
        seat = self.game.to_move(self.game_state)
        if seat is not None:
            self.agent_selection = self.possible_agents[seat]
            self._clear_rewards()
            return
        outcome = self.game.result(self.game_state)
        for agent, reward, score, rank in zip(self.agents, rank_rewards(outcome.ranks), outcome.scores,
                                              outcome.ranks, strict=True):
            self.rewards[agent] = reward
            self.terminations[agent] = True
            self.infos[agent] = {"termination": outcome.termination, "score": score, "rank": rank}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What `agent` may know, as its vector and action mask."""
        observation = self.game.observe(self.game_state, self._seats[agent])
        return {"observation": self.encoding.vector(observation),
                "action_mask": self.encoding.action_mask(observation)}

    def render(self) -> str | None:
        """With render_mode 'ansi', the observation of the agent to move (or of every seat at the end)."""
        if self.render_mode is None:
            return None
        seat = self.game.to_move(self.game_state)
        seats = range(len(self.possible_agents)) if seat is None else [seat]
        return "\n".join(self.encoding.text(self.game.observe(self.game_state, s)) for s in seats)

    def close(self) -> None:
        """Nothing to release."""
