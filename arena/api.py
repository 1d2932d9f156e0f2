"""The Python API, for notebooks and scripts: run a tournament and get pandas frames back, play one game.

    import arena
    run = arena.run("configs/quickstart.toml", overwrite=True)
    run.ratings            # one frame: a variant column, then the rating table's columns
    run.results            # one row per game
    run.report_path        # the HTML report
    arena.play("caterpillar", ["greedy", "random"], seed=7)   # the transcript, as `arena play --json`
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.config import Config, ConfigError, load_config, parse_config
from arena.config.toml import toml_text
from arena.isolation.clock import WALL_BACKSTOP

if TYPE_CHECKING:  # pandas, the ratings and pyarrow (the results) take a second to import: `arena play` needs none
    import pandas as pd

    from arena.ratings.tables import VariantRatings
    from arena.results import RunDir
    from arena.tournament.runner import RunReport


@dataclass
class Run:
    """A finished run: its directory, manifest and rating tables; the results are read on first use."""

    path: Path
    manifest: dict
    tables: dict[str, VariantRatings] = field(repr=False)
    """The full statistics of each variant (pairs, seats, duplicate deals, progress), by variant."""

    @property
    def report_path(self) -> Path:
        """The run's HTML report."""
        from arena.results import RunDir

        return RunDir(self.path).report

    @cached_property
    def ratings(self) -> pd.DataFrame:
        """The rating tables of every variant in one frame, a `variant` column first (as ratings.csv)."""
        from arena.ratings.tables import csv_frames

        return csv_frames(self.tables)[0]

    @cached_property
    def results(self) -> pd.DataFrame:
        """One row per game, in game-index order (the columns of the Parquet parts)."""
        from arena.results import RunDir, load_results

        return load_results(RunDir(self.path)).to_pandas()


def run(config: str | Path | Mapping[str, Any], *, workers: int | None = None, address: str | None = None,
        out: str | Path = "reports", resume: bool = False, overwrite: bool = False,
        progress: Callable[[int, int, str], None] | None = None) -> Run:
    """Plays a tournament to its end (or until its stopping rule stops it), rates it and writes its report.

    `config` is a path to a TOML file, TOML text, or a dict of the same structure. Like `arena tournament`,
    a run directory that already holds a run needs `resume=True` or `overwrite=True`. `progress(done, most, note)`
    is called as games finish: the games played so far, the most the run may play, and a stopping rule's note.
    """
    from arena.results import RunDir
    from arena.tournament.runner import play_missing

    if progress not in (None, False) and not callable(progress):  # `progress=True` once drew the terminal's bar
        raise TypeError("progress is a function called as progress(done, most, note), or None")
    settings = _config(config)
    directory = RunDir(Path(out) / settings.name)
    report = play_missing(settings, directory, workers=workers, address=address, resume=resume,
                          overwrite=overwrite, on_progress=progress or None)
    manifest, tables = finish_and_report(settings, directory, report)
    return Run(directory.path, manifest, tables)


def finish_and_report(settings: Config, run: RunDir, report: RunReport) -> tuple[dict, dict]:
    """Rates a played run and records its manifest (`finish_run`), then writes its report from what that read, and
    the report's time in the manifest; returns the manifest and the ratings by variant. The engine never writes the
    report: the commands and the API do, here."""
    import time

    from arena.atomic import write_atomic
    from arena.report import write_report
    from arena.tournament.runner import finish_run

    finished = finish_run(settings, run, report)
    started = time.perf_counter()
    write_report(run, finished.ratings, finished.summary)
    finished.manifest["report_seconds"] = round(time.perf_counter() - started, 3)
    write_atomic(run.manifest, json.dumps(finished.manifest, indent=2).encode())
    return finished.manifest, finished.ratings


def open_run(path: str | Path) -> Run:
    """A finished run directory, rated again from its parts with its config's settings."""
    from arena.ratings.tables import rate_run
    from arena.results import RunDir

    directory = RunDir(Path(path))
    if not directory.manifest.is_file():
        raise ConfigError(f"{directory.path} holds no finished run (no manifest.json)")
    return Run(directory.path, directory.read_manifest(), rate_run(directory))


def play(game: str, bots: Sequence[Any], seed: int = 1, rules: Mapping[str, Any] | None = None,
         move_time_limit: float | None = None, setup_time_limit: float | None = 10.0,
         wall_backstop: float = WALL_BACKSTOP) -> dict:
    """Plays one game and returns its transcript (the JSON object of `arena play --json`).

    `bots` holds one bot per seat: a name, a spec such as `path/to/file.py:Class`, or a bot instance. A game
    with a `players` option is played with as many seats as bots unless `rules` says otherwise. A bundled bot
    named is built by the referee, within `setup_time_limit` like its `reset`; any other bot named plays from a
    host process of its own, never in this one (arena/isolation/hosted.py), and must be built there within
    `setup_time_limit` (else BotError). A bot over a limit (of its CPU time, or `wall_backstop` times it in wall
    time) forfeits.
    """
    from arena.bots import BotError, can_play
    from arena.games import get_game, make_rules
    from arena.isolation.hosted import seat_class
    from arena.llm.seat import take_exchanges
    from arena.tournament import referee

    module = get_game(game)
    overrides = dict(rules or {})
    if "players" in module.Rules.__dataclass_fields__:
        overrides.setdefault("players", len(bots))
    made = make_rules(module.Rules, overrides)
    if len(bots) != module.players(made):
        raise BotError(f"{game} with these rules needs {module.players(made)} bots, got {len(bots)}")
    classes = [seat_class(bot, move_time_limit, setup_time_limit, wall_backstop) if isinstance(bot, str) else
               adapted(bot) for bot in bots]
    for bot_class in classes:
        if not can_play(bot_class, game):
            raise BotError(f"bot {bot_class.name!r} cannot play {game}")
    pairs = list(zip(bots, classes, strict=True))
    makers = [bot_class if isinstance(bot, str) else (lambda bot=bot: bot) for bot, bot_class in pairs]
    played = referee.play(module, made, makers, seed, move_time_limit=move_time_limit,
                          setup_time_limit=setup_time_limit, built=False, wall_backstop=wall_backstop)
    names = [bot_class.name if isinstance(bot, str) else bot.name for bot, bot_class in pairs]
    return {**referee.transcript(module, made, names, seed, played), **take_exchanges(len(bots))}


def adapted(bot: Any) -> type:
    """The class of a bot instance, given what its class lacks of the interface (`arena.bots.as_bot_class`): the
    instance becomes one of the class that fills it in."""
    from arena.bots import BotError, as_bot_class

    bot_class = as_bot_class(type(bot), f"the bot {bot!r}")
    if type(bot) is not bot_class:
        try:
            bot.__class__ = bot_class
        except TypeError:  # a class of __slots__
            raise BotError(f"the bot {bot!r} lacks part of the interface (reset, name, games): give its class "
                           "them, or name it by its spec") from None
    return bot_class


def _config(config: str | Path | Mapping[str, Any]) -> Config:
    """A config from a path, TOML text or a dict."""
    if isinstance(config, Mapping):
        return parse_config(toml_text(config))
    if isinstance(config, Path) or "\n" not in config and config.endswith(".toml"):
        return load_config(config)
    return parse_config(config)
