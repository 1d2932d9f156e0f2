"""What every `arena` command shares: one line and exit status 2 for bad input, the output formats."""

from __future__ import annotations

from contextlib import contextmanager
from enum import StrEnum
from typing import NoReturn

import typer

WORKERS_HELP = "Worker processes: 0 = one per core (Ray), 1 = one local worker (no Ray)."


def fail(message: str) -> NoReturn:
    """One clear line on stderr and exit status 2."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


@contextmanager
def user_errors():
    """Turns the library's errors about bad input into `fail`."""
    from arena.bots import BotError
    from arena.config import ConfigError
    from arena.games import MoveError, RulesError, UnknownGameError
    from arena.results import ResultsError

    try:
        yield
    except (BotError, RulesError, UnknownGameError, MoveError, ConfigError, ResultsError) as error:
        fail(str(error))


class Format(StrEnum):
    """Output formats of `arena ratings`."""

    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"
