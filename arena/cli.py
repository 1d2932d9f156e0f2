"""The `arena` command: thin wrappers over the library. Bad input gets one line and exit status 2."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Annotated, NoReturn

import typer

app = typer.Typer(
    help="Tournaments and a bot arena for four card games by David Parlett.\n\n"
    "Examples:\n\n  arena games\n\n  arena play caterpillar random greedy --seed 7\n\n"
    "  arena tournament configs/quickstart.toml",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def fail(message: str) -> NoReturn:
    """One clear line on stderr and exit status 2."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


@contextmanager
def user_errors():
    """Turns the library's errors about bad input into `fail`."""
    from arena.bots import BotError
    from arena.games import MoveError, RulesError, UnknownGameError

    try:
        yield
    except (BotError, RulesError, UnknownGameError, MoveError) as error:
        fail(str(error).strip("'\""))


def parse_rule_args(pairs: list[str]) -> dict[str, str]:
    """`["players=3", "jokers=true"]` as a dict; a pair without `=` fails."""
    rules = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            fail(f"--rule takes key=value, not {pair!r}")
        rules[key.strip()] = value.strip()
    return rules


@app.command()
def games() -> None:
    """List the games, their player counts and rules options (with defaults)."""
    from rich.console import Console
    from rich.table import Table

    from arena.games import GAME_IDS, get_game
    from arena.games.base import rules_options

    table = Table("game", "players", "option", "default", "allowed", "meaning")
    for game_id in GAME_IDS:
        game = get_game(game_id)
        count = f"{game.min_players}-{game.max_players}" if game.max_players > game.min_players else str(game.min_players)
        options = rules_options(game.Rules) or [{"name": "-", "default": "", "allowed": "", "help": ""}]
        for i, opt in enumerate(options):
            allowed = ", ".join(map(str, opt["allowed"])) if isinstance(opt["allowed"], tuple) else opt["allowed"] or ""
            table.add_row(game_id if i == 0 else "", count if i == 0 else "", opt["name"], str(opt["default"]),
                          allowed, opt["help"])
    Console().print(table)


@app.command()
def bots(game: Annotated[str | None, typer.Option(help="Only bots that can play this game.")] = None) -> None:
    """List the bots that can be entered: bundled, dropped in bots/, registered, installed."""
    from rich.console import Console
    from rich.table import Table

    from arena.bots import available_bots, can_play
    from arena.games import get_game

    with user_errors():
        if game is not None:
            get_game(game)
        table = Table("bot", "games", "about")
        for name, bot_class in sorted(available_bots().items()):
            if game is None or can_play(bot_class, game):
                games_ = "any" if bot_class.games is None else ", ".join(sorted(bot_class.games))
                about = (bot_class.__doc__ or "").strip().splitlines()[0] if bot_class.__doc__ else ""
                table.add_row(name, games_, about)
        Console().print(table)


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="Game id, e.g. caterpillar (see `arena games`).")],
    bots: Annotated[list[str], typer.Argument(help="One bot per seat: a name or path/to/file.py:Class.")],
    seed: Annotated[int, typer.Option(help="Seed of the deal and the bots' rngs.")] = 1,
    rule: Annotated[list[str] | None, typer.Option(help="A rules option, key=value; repeatable.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the transcript JSON.")] = False,
) -> None:
    """Play one game and print a readable account (or the transcript JSON).

    Example: arena play go_for_it random greedy random --rule jokers=true --seed 3
    """
    from arena import referee
    from arena.bots import can_play, load_bot_class
    from arena.games import get_game, make_rules

    with user_errors():
        game_module = get_game(game)
        overrides = parse_rule_args(rule or [])
        if "players" in game_module.Rules.__dataclass_fields__ and "players" not in overrides:
            overrides["players"] = str(len(bots))  # Go For It: as many seats as bots named
        rules = make_rules(game_module.Rules, overrides)
        seats = game_module.players(rules)
        if len(bots) != seats:
            fail(f"{game} with these rules needs {seats} bots, got {len(bots)}")
        classes = [load_bot_class(spec) for spec in bots]
        for bot_class in classes:
            if not can_play(bot_class, game):
                fail(f"bot {bot_class.name!r} cannot play {game}")
        played = referee.play(game_module, rules, [c() for c in classes], seed)
        data = referee.transcript(game_module, rules, [c.name for c in classes], seed, played)
    if as_json:
        typer.echo(json.dumps(data))
    else:
        typer.echo("\n".join(referee.account(data)))


def main() -> None:
    """Entry point for `python -m arena.cli`."""
    sys.exit(app())


if __name__ == "__main__":
    main()
