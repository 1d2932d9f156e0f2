"""A run directory's config read back as it was run, from any folder: its bots as named (`saved_config`, their code
checked against the hashes its manifest pinned), or from the copies of their code that the run folder holds
(`frozen_config`), which play on any machine with arena installed."""

from __future__ import annotations

from dataclasses import dataclass

from arena.bots import BotError
from arena.bots.sources import program_source, recorded_spec, resolve
from arena.config.models import Config, ConfigError
from arena.rundir import RunDir


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


def played_config(run: RunDir) -> Config:
    """The config that plays a run's games again (a replay): its bots from the copies of their code that the run holds
    (`frozen_config`), else, for a run that has not finished or was made before runs held their bots, as named."""
    if any("frozen" in bot for bot in run.read_manifest().get("bots", {}).values()):
        return frozen_config(run)[0]
    return saved_config(run)


def frozen_config(run: RunDir) -> tuple[Config, list[str]]:
    """The run's config with each bot whose code the run froze (manifest `frozen`) played from that copy in the run
    folder, so from any folder, under any ARENA_HOME; and a line for each whose source as the config names it has
    changed since the run, or cannot be found here. Made once for the operations that hold `run`."""
    return run.memo.get("frozen config", (run.config, run.manifest), lambda: _frozen_config(run))


def _frozen_config(run: RunDir) -> tuple[Config, list[str]]:
    import tomllib

    from arena.config import parse_config
    from arena.config.toml import toml_text

    manifest = run.read_manifest()
    folders = manifest.get("folders") or None
    data = tomllib.loads(run.read_config())
    notes = []
    for raw in data.get("bots", []):
        record = manifest.get("bots", {}).get(raw.get("name"), {})
        if "frozen" not in record:
            continue
        now = named_hash(raw, folders)
        if now != record.get("sha256"):
            why = "cannot be found here" if now is None else f"has changed (sha256 {record['sha256'][:12]} -> " \
                                                              f"{now[:12]})"
            notes.append(f"note: bot {raw['name']!r}: its source {why}; played from the run's copy of its code")
        raw.pop("command", None)
        raw["path"] = str(run.path.resolve() / record["frozen"])
    return parse_config(toml_text(data), folders=folders), notes


def named_hash(raw: dict, folders) -> str | None:
    """The SHA-256 of the code a `[[bots]]` entry names, read now (None: it names nothing here, or arena's own)."""
    from pathlib import Path

    from arena.config.bot_entries import command_argv

    folders = tuple(Path(f) for f in folders or (Path.cwd(),))
    try:
        if "command" in raw:
            source = program_source(command_argv(raw["command"], "command"), folders, "command")
        else:
            source = resolve(raw.get("path") or raw["name"], folders)
    except (BotError, ConfigError):
        return None
    return recorded_spec(source.folder or source.start()).get("sha256")
