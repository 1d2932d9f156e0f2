"""A tournament config's models (its games, bots, run and ratings settings) and the checks of its values,
each problem one line naming the field."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from arena.errors import ArenaError

WALL_BACKSTOP = 10.0
"""How many times its limit a call into a bot may last in wall time (`[run] wall_backstop`): the backstop for a bot
that sleeps or blocks, which uses no CPU time. Far above 1, so that load on the machine never reaches it."""
DEFAULT_MEMORY_MB = 4096
"""Address-space limit of a process bot unless its config says otherwise (`memory_mb = 0`: none)."""


class ConfigError(ArenaError, ValueError):
    """A config that cannot be run; the message names the field and the problem."""

    def __init__(self, message: str) -> None:
        # one line, whatever the config holds: a key, a path or a name may contain a newline
        super().__init__("".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message))


@dataclass(frozen=True)
class GameEntry:
    """One `[[games]]` table: a game under one set of rules, played by a round robin of bots."""

    game: str
    deals: int
    duplicate: bool = True
    rules: dict[str, Any] = field(default_factory=dict)
    bots: tuple[str, ...] | None = None
    """Names of the bots that play this game; all bots of the config when None."""
    gauntlet: str | None = None
    """A bot's name: only the tables that include it are played."""
    deals_of: tuple[int, tuple[str, ...]] | None = None
    """(seed, table): the one table of `bots` plays the deals of the table of these bots' names (in its order) of
    a config with this seed and variant, the same cards, seat orders and bots' seeds, `bots` in the places of the
    table's bots position for position; None: its own deals."""

    @property
    def label(self) -> str:
        """The variant's name in results and ratings, e.g. `go_for_it:jokers=true,players=3`."""
        if not self.rules:
            return self.game
        text = {k: str(v).lower() if isinstance(v, bool) else v for k, v in sorted(self.rules.items())}
        return f"{self.game}:" + ",".join(f"{k}={v}" for k, v in text.items())


@dataclass(frozen=True)
class BotEntry:
    """One `[[bots]]` table: a named bot, where to find it, and its parameters."""

    name: str
    path: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    spec: str = ""
    """Where the bot's class is, resolved so any worker can load it (`/abs/file.py:Class` or `module:Class`);
    `command: ...` for a bot given by a command; the absolute folder for a bot's folder (bot.toml)."""
    isolation: str = "none"
    """`none`: the bot's class plays in the worker process; `process`: in a subprocess (arena/isolation/);
    `sandbox`: in a subprocess inside a sandbox (arena/isolation/sandbox.py)."""
    command: tuple[str, ...] | None = None
    """The executable that is the bot (docs/protocol.md), program path resolved; None for a Python class."""
    memory_mb: int | None = None
    """Address-space limit of a process bot in MiB (None: no limit)."""
    cpu_seconds: float | None = None
    """CPU seconds a process bot may use per game (None: no limit)."""
    plays: tuple[str, ...] | None = None
    """The games the bot says it plays when its config is checked (None: any game)."""
    folder: str | None = None
    """A command bot's own folder (a `path` naming a folder with a bot.toml): its working directory, and in the
    sandbox the one folder of its own it sees (None: none)."""


STOP_RULES = ("all", "settled", "sprt")
SPRT_MODELS = ("logistic", "nelo")


@dataclass(frozen=True)
class SprtSettings:
    """`[run] sprt`: the sequential probability ratio test of a match (`until = "sprt"`)."""

    bots: tuple[str, str]
    """The two bots compared: H0 says the first is elo0 stronger than the second, H1 elo1."""
    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    """The chance of accepting H1 when H0 holds."""
    beta: float = 0.05
    """The chance of accepting H0 when H1 holds."""
    model: str = "logistic"
    """The Elo of elo0 and elo1: "logistic" or "nelo" (normalized, arena.tournament.stopping.sprt_llr)."""


@dataclass(frozen=True)
class RunSettings:
    """The `[run]` table."""

    workers: int = 0
    """Worker processes; 0 = one per core, 1 = play in this process."""
    address: str | None = None
    """A Ray cluster to run on instead of a local instance."""
    batch_size: int = 2000
    move_time_limit: float | None = 1.0
    """Seconds of its own CPU time a bot may take per move (None: no limit)."""
    setup_time_limit: float = 10.0
    """Seconds of its own CPU time a bot may take to be built (its module's import included) and for each `reset`."""
    until: str = "all"
    """When to stop: "all" deals; "settled", once a variant's table is settled; "sprt", once the test decides."""
    max_deals: int | None = None
    """Deals per table for the games that do not give their own `deals`."""
    round_deals: int = 10
    """A stopping rule looks at the results after every this many deals of every table."""
    confidence: float = 0.95
    """`settled`: the chance that no look separates any adjacent pair wrongly (split between the looks)."""
    tie_margin: float = 0.5
    """`settled`: a rating difference known to lie within +-tie_margin is a tie (0.5 = 53% head to head)."""
    sprt: SprtSettings | None = None
    wall_backstop: float = WALL_BACKSTOP
    """How many times its limit a call into a bot may last in wall time (WALL_BACKSTOP): it stops
    a bot that sleeps or blocks, which uses no CPU time."""
    suspend_after: int = 3
    """A bot whose calls the wall-clock backstop ended this many times in a run is suspended for the rest of it: its
    remaining games are forfeits charged to it without being played (0: never)."""


RATING_METHODS = ("batch", "online")


@dataclass(frozen=True)
class RatingSettings:
    """The TrueSkill environment of a tournament: the `[ratings]` table of its config."""

    mu: float = 25.0
    """Initial mean of every bot's rating."""
    sigma: float = 25.0 / 3
    """Initial standard deviation."""
    beta: float = 25.0 / 6
    """Performance spread: a beta lead is about a 76% chance to win."""
    tau: float = 25.0 / 300
    """Dynamics: added to sigma before every game so ratings can keep moving."""
    draw_probability: float = 0.1
    """Chance that two adjacent seats draw; sets the draw margin."""
    backend: str | tuple | None = None
    """trueskill's cdf/pdf/ppf: None (its own erfc approximation), "mpmath", "scipy" or a tuple."""
    method: str = "batch"
    """"batch": the posterior given all games at once (order-free, no dynamics); "online": the
    package's update game by game in game-index order."""
    company_deals: int = 40
    """Three or more players: deals' worth of games from which a company (the bots at a table) counts as much
    as any other in the batch fit (`arena.ratings.company`)."""

    def __post_init__(self) -> None:
        if self.method not in RATING_METHODS:
            raise ValueError(f"ratings: method must be one of {', '.join(RATING_METHODS)}, not {self.method!r}")
        if not (self.sigma > 0 and self.beta > 0 and self.tau >= 0):
            raise ValueError(f"ratings: need sigma > 0, beta > 0, tau >= 0, not {self}")
        if not (isinstance(self.company_deals, int) and self.company_deals >= 1):
            raise ValueError(f"ratings: company_deals must be a whole number of at least 1, not {self.company_deals!r}")
        if not 0 <= self.draw_probability < 1:
            raise ValueError(f"ratings: draw_probability must be in [0, 1), not {self.draw_probability!r}")

    def env(self) -> Any:
        """A fresh `trueskill.TrueSkill` environment with these constants (never the global one)."""
        import trueskill

        return trueskill.TrueSkill(self.mu, self.sigma, self.beta, self.tau, self.draw_probability,
                                   backend=self.backend)


@dataclass(frozen=True)
class Config:
    """A whole tournament, exactly as its TOML says."""

    name: str
    seed: int
    games: tuple[GameEntry, ...]
    bots: tuple[BotEntry, ...]
    run: RunSettings = RunSettings()
    ratings: RatingSettings = RatingSettings()
    text: str = ""
    """The TOML text the config was read from."""
    folders: tuple[str, ...] = ()
    """The folders (absolute) a relative bot path or command argument was looked up in, in order: a run records
    them, so that its config reads the same from any folder."""
    llm_store: str | None = None
    """Where its model seats keep every request and reply (`RUN/llm/`, arena/llm/store.py), set by what plays it in
    a run folder; None: nothing kept."""


def check_keys(table: dict, allowed: set[str], where: str) -> None:
    """Raises ConfigError naming the first key of `table` that is not in `allowed`."""
    for key in table:
        if key not in allowed:
            raise ConfigError(f"{where}{key}: unknown field (fields: {', '.join(sorted(allowed))})")


def checked_integer(value: Any, where: str, low: int | None = None) -> int:
    """`value` if it is an integer of at least `low`, else a ConfigError naming `where`."""
    if not isinstance(value, int) or isinstance(value, bool) or (low is not None and value < low):
        wanted = "a positive integer" if low == 1 else "a non-negative integer" if low == 0 else "an integer"
        raise ConfigError(f"{where}: must be {wanted}, not {value!r}")
    return value


def checked_number(value: Any, where: str, low: float = 0.0, inclusive: bool = False) -> float:
    """`value` as a float if it is a finite number above `low` (or equal, if `inclusive`), else a ConfigError."""
    if (not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < low
            or (value == low and not inclusive)):
        raise ConfigError(f"{where}: must be a number {'>=' if inclusive else '>'} {low:g}, not {value!r}")
    return float(value)


def checked_string(value: Any, where: str) -> str:
    """`value` if it is a non-empty string, else a ConfigError naming `where`."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: must be a non-empty string, not {value!r}")
    return value


def checked_table(value: Any, where: str) -> dict:
    """`value` if it is a TOML table, else a ConfigError naming `where`."""
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: must be a table, not {value!r}")
    return value


def checked_confidence(value: Any, where: str) -> float:
    """`value` if it is a confidence in [0.5, 1), else a ConfigError naming `where`."""
    if not isinstance(value, float) or not 0.5 <= value < 1:
        raise ConfigError(f"{where}: must be a number in [0.5, 1), not {value!r}")
    return value


def first_repeat(values) -> int | None:
    """The position of the first value that appeared before, or None."""
    seen = set()
    for position, value in enumerate(values):
        if value in seen:
            return position
        seen.add(value)
    return None
