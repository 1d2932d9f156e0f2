"""A run's bots, by their code: copied into its folder before the first game, so that the folder plays again on any
machine (`arena reproduce`), and told apart by the hash of that code, whatever name or path named them."""

from __future__ import annotations

import logging

from arena.bots.sources import recorded_spec
from arena.config import BotEntry, Config
from arena.results import RunDir


def freeze_bots(config: Config, run: RunDir) -> None:
    """Copies the code of each bot of `config` that is not arena's own into `run/bots/<sha256>/` (once per code), so
    that the run folder plays again anywhere (`arena reproduce`); says so of a bot whose code cannot be copied."""
    for bot in config.bots:
        recorded = recorded_spec(bot.folder or bot.spec, run.bots)
        if "form" in recorded and "frozen" not in recorded:  # arena's own code has no form here: its version pins it
            pinned = f" (sha256 {recorded['sha256'][:12]} pins it)" if "sha256" in recorded else ""
            logging.getLogger(__name__).warning(
                f"note: bot {bot.name!r}: its code cannot be copied into the run{pinned}; reproducing the run needs "
                "it where it is")


def code_identity(bot: BotEntry) -> str:
    """What a bot is, whatever it was named by (a registered name, a path, a folder, a command): the SHA-256 of its
    code, or arena's own bot's spec."""
    recorded = recorded_spec(bot.folder or bot.spec)
    return recorded.get("sha256") or recorded.get("spec") or bot.spec
