"""A run's folder made ready before its first game: its config written, or a resumed run's checked against it with
each bot told apart by its code, whatever name or path named it; and its bots' code copied into it, so that the
folder plays again on any machine (`arena reproduce`)."""

from __future__ import annotations

import logging
import shutil

from arena.bots.sources import recorded_spec
from arena.config import BotEntry, Config, ConfigError, parse_config
from arena.results import RunDir


def prepare_run_dir(config: Config, run: RunDir, *, resume: bool, overwrite: bool) -> None:
    """Creates the run directory with the exact config, or checks that a resumed one holds the same config; then,
    before the first game, copies each bot's code into it (`freeze_bots`)."""
    _prepare_config(config, run, resume=resume, overwrite=overwrite)
    freeze_bots(config, run)


def _prepare_config(config: Config, run: RunDir, *, resume: bool, overwrite: bool) -> None:
    if run.config.exists():
        if overwrite:
            shutil.rmtree(run.results, ignore_errors=True)
            shutil.rmtree(run.bots, ignore_errors=True)
            shutil.rmtree(run.path / "llm", ignore_errors=True)  # afresh: the model is asked again
            for path in (run.manifest, run.ratings, run.summary, run.report):
                path.unlink(missing_ok=True)
        elif resume:
            saved = parse_config(run.read_config(), folders=config.folders)  # its paths found as the new one's
            if _comparable(saved) != _comparable(config):
                raise ConfigError(f"{run.path} holds a run of a different config; use another name or --overwrite")
            return
        else:
            raise ConfigError(f"{run.path} already holds a run: --resume to finish it, --overwrite to start afresh")
    from arena.atomic import write_atomic

    write_atomic(run.config, config.text.encode())


def _comparable(config: Config) -> tuple:
    """A config without its text and bot paths, its bots by their code (`code_identity`), to compare a saved run with
    a new one."""
    bots = tuple((b.name, code_identity(b), repr(b.params), b.isolation, b.memory_mb, b.cpu_seconds)
                 for b in config.bots)
    limits = (config.run.move_time_limit, config.run.setup_time_limit, config.run.wall_backstop,
              config.run.suspend_after)
    stopping = (config.run.until, config.run.round_deals, config.run.confidence, config.run.tie_margin,
                repr(config.run.sprt))  # where a rule stops decides which games the run holds
    return (config.name, config.seed, repr(config.games), bots, limits, stopping, repr(config.ratings))



def freeze_bots(config: Config, run: RunDir) -> None:
    """Copies the code of each bot of `config` that is not arena's own into `run/bots/<sha256>/` (once per code), so
    that the run folder plays again anywhere (`arena reproduce`); says so of a bot whose code cannot be copied."""
    for bot in config.bots:
        recorded = recorded_spec(bot.folder or bot.spec, run.bots)
        if "form" in recorded and "frozen" not in recorded:  # arena's own code has no form here: its version pins it
            pinned = f" (sha256 {recorded['sha256'][:12]} pins it)" if "sha256" in recorded else ""
            logging.getLogger(__name__).warning(
                f"bot {bot.name!r}: its code cannot be copied into the run{pinned}; reproducing the run needs "
                "it where it is")


def code_identity(bot: BotEntry) -> str:
    """What a bot is, whatever it was named by (a registered name, a path, a folder, a command): the SHA-256 of its
    code, or arena's own bot's spec."""
    recorded = recorded_spec(bot.folder or bot.spec)
    return recorded.get("sha256") or recorded.get("spec") or bot.spec
