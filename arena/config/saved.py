"""A run directory's config read back as it was run, from any folder, and its bots' code checked against the
hashes its manifest pinned."""

from __future__ import annotations

from dataclasses import dataclass

from arena.bots.sources import recorded_spec
from arena.config.models import Config
from arena.results import RunDir


def saved_config(run: RunDir) -> Config:
    """The run's config.toml, its relative bot paths looked up in the folders the run recorded (the working
    directory and the config's folder when it was started), so that it reads the same from any folder. A run
    that has not finished has no record yet: its paths are looked up from here. Parsed once for the operations
    that hold `run`, while its config and manifest are unchanged (a config that does not parse is not kept)."""
    from arena.config import parse_config

    return run.memo.get("saved config", (run.config, run.manifest), lambda: parse_config(
        run.read_config(), folders=run.read_manifest().get("folders") or None))


@dataclass(frozen=True)
class ChangedCode:
    """A bot whose code is not what the run played: its name, the hash then and now (None: gone)."""

    name: str
    then: str
    now: str | None

    def __str__(self) -> str:
        now = "its files are gone" if self.now is None else f"sha256 {self.then[:12]} -> {self.now[:12]}"
        return f"bot {self.name!r}: its code changed since the run ({now})"


def changed_code(config: Config, manifest: dict) -> list[ChangedCode]:
    """The bots of `config` whose code hash differs from the one the run's manifest pinned (bots pinned by
    arena's version, and runs made before hashes were recorded, are not checked)."""
    changed = []
    for bot in config.bots:
        then = manifest.get("bots", {}).get(bot.name, {}).get("sha256")
        if then is None:
            continue
        now = recorded_spec(bot.folder or bot.spec).get("sha256")
        if now != then:
            changed.append(ChangedCode(bot.name, then, now))
    return changed
