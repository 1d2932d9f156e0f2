"""Tournament configs (TOML): models and validation. Every problem is one line naming the field."""

from __future__ import annotations

import math
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.bots import implementation
from arena.config.bot_entries import BOT_CHECKS, bot_entry
from arena.config.models import (
    RATING_METHODS,
    SPRT_MODELS,
    STOP_RULES,
    BotEntry,
    Config,
    ConfigError,
    GameEntry,
    RatingSettings,
    RunSettings,
    SprtSettings,
    check_keys,
    checked_confidence,
    checked_integer,
    checked_number,
    checked_string,
    checked_table,
    first_repeat,
)
from arena.games import RulesError, UnknownGameError, get_game, make_rules

__all__ = ["RATING_METHODS", "STOP_RULES", "BotEntry", "Config", "ConfigError", "GameEntry", "RatingSettings",
           "RunSettings", "SprtSettings", "checked_game", "checked_rules", "load_config", "parse_config",
           "rating_settings", "run_settings"]


def load_config(path: str | Path) -> Config:
    """The config in the TOML file at `path`, validated."""
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    try:
        return parse_config(text, base=path.parent)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def parse_config(text: str, base: Path = Path("."), folders: Sequence[str | Path] | None = None) -> Config:
    """The config in a TOML text; a relative bot path, program or command argument is looked up in `folders` in
    order, by default the cwd and then `base` (the config file's folder)."""
    folders = tuple(dict.fromkeys(Path(f).resolve() for f in (folders or (Path.cwd(), base))))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"malformed TOML: {error}") from None
    except RecursionError:  # tomllib recurses once per level of nested arrays and inline tables
        raise ConfigError("malformed TOML: arrays or tables nested too deeply") from None
    check_keys(data, {"name", "seed", "games", "bots", "run", "ratings"}, "")
    for key in ("name", "seed", "games", "bots"):
        if key not in data:
            raise ConfigError(f"{key}: missing")
    name = checked_string(data["name"], "name")
    if any(ch in name for ch in "/\\") or name in (".", ".."):
        raise ConfigError(f"name: must not contain a path separator, not {name!r}")
    seed = checked_integer(data["seed"], "seed", 0)
    if not isinstance(data["bots"], list) or not data["bots"]:
        raise ConfigError("bots: must be a non-empty array of tables ([[bots]])")
    bots = tuple(bot_entry(checked_table(raw, f"bots[{i}]"), f"bots[{i}].", folders)
                 for i, raw in enumerate(data["bots"]))
    if (twice := first_repeat(b.name for b in bots)) is not None:
        raise ConfigError(f"bots[{twice}].name: {bots[twice].name!r} appears twice")
    run = run_settings(checked_table(data.get("run", {}), "run"), bots)
    bots = implementation(BOT_CHECKS)(bots, run.setup_time_limit, run.wall_backstop)
    if not isinstance(data["games"], list) or not data["games"]:
        raise ConfigError("games: must be a non-empty array of tables ([[games]])")
    games = tuple(_game_entry(checked_table(raw, f"games[{i}]"), f"games[{i}].", bots, run.max_deals)
                  for i, raw in enumerate(data["games"]))
    if (twice := first_repeat((g.label, g.bots) for g in games)) is not None:  # a variant again must name other bots
        raise ConfigError(f"games[{twice}]: {games[twice].label} is listed twice")
    _check_tables_once(games, bots)
    if run.sprt is not None:
        _check_sprt_games(run.sprt, games, bots)
    ratings = rating_settings(checked_table(data.get("ratings", {}), "ratings"))
    return Config(name, seed, games, bots, run, ratings, text, tuple(map(str, folders)))


def _check_tables_once(games: tuple[GameEntry, ...], bots: tuple[BotEntry, ...]) -> None:
    """A variant listed more than once (as a league's round lists one table an entry) must not list a table
    twice: a table's deals are seeded by the variant and the table's bots, so it would play the same games again."""
    from collections import Counter
    from itertools import combinations

    repeated = {label for label, count in Counter(g.label for g in games).items() if count > 1}
    seen: dict[tuple, int] = {}
    for i, entry in enumerate(games):
        if entry.label not in repeated:
            continue
        game = get_game(entry.game)
        entrants = sorted(entry.bots if entry.bots is not None else [b.name for b in bots])
        for table in combinations(entrants, game.players(make_rules(game.Rules, entry.rules))):
            if entry.gauntlet is not None and entry.gauntlet not in table:
                continue
            if (entry.label, table) in seen:
                raise ConfigError(f"games[{i}]: {entry.label} plays the table {', '.join(table)} again "
                                  f"(games[{seen[entry.label, table]}] has it): each table of a variant once")
            seen[entry.label, table] = i


def _game_entry(raw: dict, where: str, bots: tuple[BotEntry, ...], max_deals: int | None) -> GameEntry:
    check_keys(raw, {"game", "deals", "duplicate", "rules", "bots", "gauntlet", "deals_of"}, where)
    if "game" not in raw:
        raise ConfigError(f"{where}game: missing")
    if "deals" not in raw and max_deals is None:
        raise ConfigError(f"{where}deals: missing (or give run.max_deals)")
    game = checked_game(raw, where)
    deals = checked_integer(raw["deals"], where + "deals", 1) if "deals" in raw else max_deals
    duplicate = raw.get("duplicate", True)
    if not isinstance(duplicate, bool):
        raise ConfigError(f"{where}duplicate: must be true or false, not {duplicate!r}")
    rules_raw, rules = checked_rules(game, raw, where)
    by_name = {b.name: b for b in bots}
    chosen = raw.get("bots")
    if chosen is not None:
        if not isinstance(chosen, list) or not all(isinstance(n, str) for n in chosen):
            raise ConfigError(f"{where}bots: must be an array of bot names")
        for bot_name in chosen:
            if bot_name not in by_name:
                raise ConfigError(f"{where}bots: no bot named {bot_name!r} in [[bots]]")
    for bot_name in chosen if chosen is not None else by_name:
        plays = by_name[bot_name].plays
        if plays is not None and game.id not in plays:
            raise ConfigError(f"{where}game: bot {bot_name!r} cannot play {game.id} "
                              f"(it plays {', '.join(sorted(plays))}); list the bots that can in {where}bots")
    players = game.players(rules)
    entrants = len(chosen) if chosen is not None else len(bots)
    if entrants < players:
        raise ConfigError(f"{where}rules: {game.id} needs {players} players per table, "
                          f"but only {entrants} bots can play it")
    gauntlet = checked_string(raw["gauntlet"], where + "gauntlet") if "gauntlet" in raw else None
    if gauntlet is not None and gauntlet not in (chosen if chosen is not None else by_name):
        raise ConfigError(f"{where}gauntlet: {gauntlet!r} is not a bot that plays this game")
    deals_of = _deals_of(raw["deals_of"], where + "deals_of", chosen, players) if "deals_of" in raw else None
    return GameEntry(game.id, deals, duplicate, dict(rules_raw), tuple(chosen) if chosen is not None else None,
                     gauntlet, deals_of)


def _deals_of(raw, where: str, chosen: list[str] | None, players: int) -> tuple[int, tuple[str, ...]]:
    """`deals_of = { seed = S, table = [names] }`: the table whose deals the entry's one table plays."""
    table = checked_table(raw, where)
    check_keys(table, {"seed", "table"}, where)
    for key in ("seed", "table"):
        if key not in table:
            raise ConfigError(f"{where}.{key}: missing")
    seed = checked_integer(table["seed"], where + ".seed", 0)
    names = table["table"]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names) or len(names) != players:
        raise ConfigError(f"{where}.table: must be an array of {players} bot names (the table whose deals it plays)")
    if chosen is None or len(chosen) != players:
        raise ConfigError(f"{where}: needs bots, exactly {players} of them (the one table that plays those deals)")
    return seed, tuple(names)


def checked_game(raw: dict, where: str) -> Any:
    """The game module that the `game` key of a `[[games]]` table names, else a ConfigError."""
    try:
        return get_game(checked_string(raw["game"], where + "game"))
    except UnknownGameError as error:
        raise ConfigError(f"{where}game: {error}".replace("'", "")) from None


def checked_rules(game: Any, raw: dict, where: str) -> tuple[dict, Any]:
    """The `rules` table of a `[[games]]` table, as given and as the game's Rules, else a ConfigError."""
    rules_raw = checked_table(raw.get("rules", {}), where + "rules")
    try:
        return rules_raw, make_rules(game.Rules, rules_raw)
    except RulesError as error:
        raise ConfigError(f"{where}rules: {error}") from None


def _check_sprt_games(sprt: SprtSettings, games: tuple[GameEntry, ...], bots: tuple[BotEntry, ...]) -> None:
    """A test compares two bots on one game: they must both play it."""
    if len(games) != 1:
        raise ConfigError(f"run.sprt: a test needs exactly one [[games]] table, not {len(games)}")
    entrants = games[0].bots if games[0].bots is not None else tuple(b.name for b in bots)
    for name in sprt.bots:
        if name not in entrants:
            raise ConfigError(f"run.sprt.bots: {name!r} does not play {games[0].label}")


def run_settings(raw: dict, bots: tuple[BotEntry, ...]) -> RunSettings:
    """The `[run]` table checked and made RunSettings, with the defaults for the keys it leaves out."""
    check_keys(raw, {"workers", "address", "batch_size", "move_time_limit", "setup_time_limit", "until", "max_deals",
                      "round_deals", "confidence", "tie_margin", "sprt", "wall_backstop", "suspend_after"}, "run.")
    workers = raw.get("workers", 0)
    address = raw.get("address")
    if isinstance(workers, str):  # a Ray address in `workers` runs on that cluster
        workers, address = 0, workers
    workers = checked_integer(workers, "run.workers", 0)
    if address is not None:
        address = checked_string(address, "run.address")
    batch_size = checked_integer(raw.get("batch_size", RunSettings.batch_size), "run.batch_size", 1)
    limit = raw.get("move_time_limit", RunSettings.move_time_limit)
    limit = None if limit == 0 else checked_number(limit, "run.move_time_limit")
    setup_limit = checked_number(raw.get("setup_time_limit", RunSettings.setup_time_limit), "run.setup_time_limit")
    wall_backstop = checked_number(raw.get("wall_backstop", RunSettings.wall_backstop), "run.wall_backstop", 1.0, True)
    suspend_after = checked_integer(raw.get("suspend_after", RunSettings.suspend_after), "run.suspend_after", 0)
    until = raw.get("until", "all")
    if until not in STOP_RULES:
        raise ConfigError(f"run.until: must be one of {', '.join(map(repr, STOP_RULES))}, not {until!r}")
    for key, rule in (("confidence", "settled"), ("tie_margin", "settled"), ("sprt", "sprt")):
        if key in raw and until != rule:
            raise ConfigError(f'run.{key}: applies only with until = "{rule}"')
    if until == "sprt" and "sprt" not in raw:
        raise ConfigError('run.sprt: missing; until = "sprt" needs sprt = { bots = ["a", "b"], elo0 = 0, elo1 = 5 }')
    max_deals = checked_integer(raw["max_deals"], "run.max_deals", 1) if "max_deals" in raw else None
    round_deals = checked_integer(raw.get("round_deals", RunSettings.round_deals), "run.round_deals", 1)
    confidence = checked_confidence(raw.get("confidence", RunSettings.confidence), "run.confidence")
    tie_margin = checked_number(raw.get("tie_margin", RunSettings.tie_margin), "run.tie_margin", inclusive=True)
    sprt = _sprt_settings(checked_table(raw["sprt"], "run.sprt"), bots) if "sprt" in raw else None
    return RunSettings(workers, address, batch_size, limit, setup_limit, until, max_deals, round_deals, confidence,
                       tie_margin, sprt, wall_backstop, suspend_after)


def _sprt_settings(raw: dict, bots: tuple[BotEntry, ...]) -> SprtSettings:
    check_keys(raw, {"bots", "elo0", "elo1", "alpha", "beta", "model"}, "run.sprt.")
    names = raw.get("bots")
    if (not isinstance(names, list) or len(names) != 2 or not all(isinstance(n, str) for n in names)
            or names[0] == names[1]):
        raise ConfigError(f"run.sprt.bots: must name two different bots, not {names!r}")
    for name in names:
        if name not in {b.name for b in bots}:
            raise ConfigError(f"run.sprt.bots: no bot named {name!r} in [[bots]]")
    elo = {}
    for key, default in (("elo0", 0.0), ("elo1", 5.0)):
        value = raw.get(key, default)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not -1000 < value < 1000:
            raise ConfigError(f"run.sprt.{key}: must be a number of Elo between -1000 and 1000, not {value!r}")
        elo[key] = float(value)
    if elo["elo0"] >= elo["elo1"]:
        raise ConfigError(f"run.sprt: elo0 must be below elo1, not {elo['elo0']:g} and {elo['elo1']:g}")
    errors = {}
    for key in ("alpha", "beta"):
        value = raw.get(key, 0.05)
        if not isinstance(value, float) or not 0 < value < 0.5:
            raise ConfigError(f"run.sprt.{key}: must be a number in (0, 0.5), not {value!r}")
        errors[key] = value
    model = raw.get("model", "logistic")
    if model not in SPRT_MODELS:
        raise ConfigError(f"run.sprt.model: must be one of {', '.join(SPRT_MODELS)}, not {model!r}")
    return SprtSettings((names[0], names[1]), elo["elo0"], elo["elo1"], errors["alpha"], errors["beta"], model)


def rating_settings(raw: dict) -> RatingSettings:
    """The `[ratings]` table, checked."""
    check_keys(raw, {"mu", "sigma", "beta", "tau", "draw_probability", "method", "company_deals"}, "ratings.")
    method = raw.get("method", "batch")
    if method not in RATING_METHODS:
        raise ConfigError(f"ratings.method: must be one of {', '.join(RATING_METHODS)}, not {method!r}")
    defaults = RatingSettings()
    mu = raw.get("mu", defaults.mu)
    if not isinstance(mu, (int, float)) or isinstance(mu, bool) or not math.isfinite(mu):
        raise ConfigError(f"ratings.mu: must be a finite number, not {mu!r}")
    sigma = checked_number(raw.get("sigma", mu / 3), "ratings.sigma")
    beta = checked_number(raw.get("beta", sigma / 2), "ratings.beta")
    tau = checked_number(raw.get("tau", sigma / 100), "ratings.tau", inclusive=True)
    draw = raw.get("draw_probability", defaults.draw_probability)
    if not isinstance(draw, (int, float)) or isinstance(draw, bool) or not 0 <= draw < 1:
        raise ConfigError(f"ratings.draw_probability: must be a number in [0, 1), not {draw!r}")
    company_deals = raw.get("company_deals", defaults.company_deals)
    if not isinstance(company_deals, int) or isinstance(company_deals, bool) or company_deals < 1:
        raise ConfigError(f"ratings.company_deals: must be a whole number of at least 1, not {company_deals!r}")
    return RatingSettings(float(mu), sigma, beta, tau, float(draw), method=method, company_deals=company_deals)
