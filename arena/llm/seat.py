"""The model seat: a bot that asks a language model for each move (`llm:MODEL@URL`, or a config's `llm = {...}`).

Its limits are a remote model's: a wall-clock limit per move (`move_seconds`, all its tries together) and a token
budget per game (`token_budget`), not CPU time, which the referee does not count for it (`untimed_call`). An answer
that names no legal move is told why and asked again, `tries` asks in all; the last one is then played as it is,
and the referee forfeits it as an illegal move with the answer as its fault text. What it spent in each game (tokens
in and out, asks, the model's seconds) is counted by seat for the results' timing columns (`take_usage`)."""

from __future__ import annotations

import random
import time
from typing import Any, ClassVar

from arena.bots import Bot, BotError
from arena.errors import ArenaError
from arena.games import get_game
from arena.isolation.clock import MoveTimeout, untimed_call
from arena.llm.prompt import Unreadable, decision_prompt, parse_answer, system_prompt
from arena.llm.store import EndpointError, EndpointTimeout, Store, ask

PREFIX = "llm:"
DEFAULT_URL = "http://127.0.0.1:8000/v1"
"""Where a spec without `@URL` finds its model: llama.cpp's server (`python -m llama_cpp.server`) on its port."""
DEFAULTS: dict[str, Any] = {"temperature": 0.0, "max_tokens": 16, "api_key_env": None, "tries": 3,
                            "move_seconds": 60.0, "token_budget": 100_000, "store": None}
"""A model seat's parameters (config `llm = {...}` or `params`); `store` is set by the run: its `llm/` folder."""

USAGE: dict[int, list] = {}
"""What the model seats of the game being played spent so far, by seat: [tokens in, tokens out, asks, seconds]."""
EXCHANGES: dict[int, list] = {}
"""The exchanges of the game being played, by seat: for each of its decisions in order, `{"prompt", "answers"}`
(what it was shown, and each answer it gave), for a replay page to show beside each move (`take_exchanges`)."""


def take_exchanges(players: int) -> dict:
    """`{"exchanges": [...]}`, by seat each model seat's exchanges of the game just played (None for a seat that is
    no model), for its transcript; {} when no model played. The record starts again."""
    if not EXCHANGES:
        return {}
    taken = [EXCHANGES.get(seat) for seat in range(players)]
    EXCHANGES.clear()
    return {"exchanges": taken}


def take_usage(players: int) -> tuple[list | None, ...]:
    """The timing columns of the game just played (tokens in, tokens out, tries, seconds, each a list by seat, 0
    for a seat that is no model), or four Nones when no model played; the count starts again."""
    if not USAGE:
        return None, None, None, None
    spent = [USAGE.get(seat, [0, 0, 0, 0.0]) for seat in range(players)]
    USAGE.clear()
    return tuple([seat[i] for seat in spent] for i in range(3)) + ([round(seat[3], 6) for seat in spent],)


def split_spec(spec: str) -> tuple[str, str]:
    """`llm:MODEL[@URL]` as (model, url); raises BotError with one line."""
    model, _, url = spec.strip().removeprefix(PREFIX).partition("@")
    model, url = model.strip(), url.strip() or DEFAULT_URL
    if not model:
        raise BotError(f"{spec!r} names no model; give llm:MODEL@URL, e.g. llm:gemma-3-270m@{DEFAULT_URL}")
    if not url.startswith(("http://", "https://")):
        raise BotError(f"{spec!r}: the model's URL must start with http:// or https://, not {url!r}")
    return model, url


class ModelSeat(Bot):
    """A seat played by a language model behind an OpenAI-compatible chat endpoint."""

    games = None
    defaults = DEFAULTS
    model: ClassVar[str] = ""
    url: ClassVar[str] = DEFAULT_URL
    own_deadlines: ClassVar[bool] = True
    """Its setup calls ask no model: the referee need not time them. Its moves leave the referee's clock themselves
    (`untimed_call`): they wait on the network, not the CPU, and keep `move_seconds` and `token_budget`."""

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        p = self.params
        for key, low in (("tries", 1), ("max_tokens", 1), ("token_budget", 1)):
            if not isinstance(p[key], int) or isinstance(p[key], bool) or p[key] < low:
                raise BotError(f"{key} must be an integer of at least {low}, not {p[key]!r}")
        for key in ("temperature", "move_seconds"):
            if not isinstance(p[key], (int, float)) or isinstance(p[key], bool) or p[key] < 0:
                raise BotError(f"{key} must be a number of at least 0, not {p[key]!r}")
        if p["api_key_env"] is not None and not isinstance(p["api_key_env"], str):
            raise BotError(f"api_key_env must name an environment variable, not {p['api_key_env']!r}")
        self.store = Store(p["store"])

    def reset(self, game_id: str, seat: int, rules: Any, rng: random.Random) -> None:
        """A new game: its rules summary, its token budget whole, a seed of its own for the model's sampling."""
        super().reset(game_id, seat, rules, rng)
        self.game = get_game(game_id)
        self.system = system_prompt(game_id)
        self.seed = rng.getrandbits(31)
        self.spent = 0
        USAGE[seat] = [0, 0, 0, 0.0]
        EXCHANGES[seat] = []

    def act(self, observation: Any) -> Any:
        """The legal move the model names, asked again with the reason while it names none (`tries` asks); else its
        last answer, which the referee forfeits as an illegal move."""
        untimed_call()  # its limits are its own: the referee's CPU clock and wall backstop leave this move alone
        legal = [self.game.move_to_str(move) for move in observation.legal_moves]
        prompt = decision_prompt(self.game.observation_json(observation), legal)
        # the rules open the user's message, not a system message: some chat templates (Gemma's) drop those
        messages = [{"role": "user", "content": f"{self.system}\n\n{prompt}"}]
        deadline = time.monotonic() + self.params["move_seconds"]
        answer = ""
        answers: list[str] = []
        EXCHANGES.setdefault(self.seat, []).append({"prompt": prompt, "answers": answers})
        for _ in range(self.params["tries"]):
            answer = self._ask(messages, deadline)
            answers.append(answer)
            try:
                return observation.legal_moves[parse_answer(answer, legal)]
            except Unreadable as why:
                messages += [{"role": "assistant", "content": answer},
                             {"role": "user", "content": f"Not a legal move: {why}. Answer with one number "
                                                         f"from 1 to {len(legal)}."}]
        return answer

    def _ask(self, messages: list[dict], deadline: float) -> str:
        """One ask of the model: its answer, counted in the game's usage; a spent budget or a late or failed
        endpoint ends the move (MoveTimeout, or EndpointError: the referee's crash)."""
        budget = self.params["token_budget"]
        if self.spent >= budget:
            raise MoveTimeout(fault=f"token budget of {budget} tokens spent")
        request = {"model": self.model, "messages": messages, "temperature": self.params["temperature"],
                   "max_tokens": self.params["max_tokens"], "seed": self.seed}
        try:
            reply = ask(self.store, self.url, request, self.params["api_key_env"], deadline - time.monotonic())
        except EndpointTimeout as late:
            raise MoveTimeout(fault=str(late)) from None
        except EndpointError as error:
            raise ModelError(str(error)) from None
        self.spent += reply.tokens_in + reply.tokens_out
        used = USAGE.setdefault(self.seat, [0, 0, 0, 0.0])
        used[0] += reply.tokens_in
        used[1] += reply.tokens_out
        used[2] += 1
        used[3] += reply.seconds
        return reply.text


class ModelError(ArenaError, RuntimeError):
    """The model's endpoint failed a move (the referee's crash, with this line as the fault)."""


_classes: dict[str, type] = {}


def model_seat_class(spec: str) -> type:
    """The bot class of `llm:MODEL[@URL]` (one per spec), named by its model."""
    model, url = split_spec(spec)
    key = f"{model}@{url}"
    if key not in _classes:
        _classes[key] = type("ModelSeat", (ModelSeat,), {"name": model, "model": model, "url": url,
                                                         "__module__": __name__, "__qualname__": "ModelSeat"})
    return _classes[key]
