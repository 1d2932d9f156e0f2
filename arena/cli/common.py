"""What every `arena` command shares: one line and exit status 2 for bad input, the output formats, playing a run's
config and printing its tables."""

from __future__ import annotations

import gc
import logging
import sys
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import NoReturn

import typer

WORKERS_HELP = "Worker processes: 0 = one per core (Ray), 1 = one local worker (no Ray)."


class ConsoleLog(logging.Handler):
    """arena's log as a command prints it: a note (the address a server listens on) on stdout as it is, a warning or
    an error on stderr after `warning: ` or `error: `. The streams are looked up at each line, so a capture made after
    this handler (a test's) still gets what it writes."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
            stream = sys.stdout if record.levelno < logging.WARNING else sys.stderr
            stream.write(text if stream is sys.stdout else f"{record.levelname.lower()}: {text}")
            stream.write("\n")
            stream.flush()
        except Exception:  # noqa: BLE001 - logging's own way: a line that cannot be written never stops the command
            self.handleError(record)


COLLECT_EVERY = 50_000
"""How many new container objects start a collection of the youngest generation in an `arena` command's process
(Python's default: 700)."""


def collect_less() -> None:
    """The cycle collector of this command's process set to run less often (the app's callback calls it as the
    command starts, not on import: arena's library users keep their own settings). A command imports arena's stack
    (numba, pandas, scipy, pyarrow: about 110,000 objects that live as long as the process), and the default
    threshold had the collector go over them in 460 collections of a small `arena tournament`, 64 with this one.
    Eight runs of each, with their children: `arena tournament` 1.54 CPU-seconds before, 1.47 after; `arena
    ratings` 1.40 and 1.28. Garbage without cycles is freed at once either way; garbage in cycles waits longer (at
    most COLLECT_EVERY objects of it)."""
    gc.set_threshold(COLLECT_EVERY)


def log_to_console(level: int = logging.WARNING) -> None:
    """Sends the log of arena's modules from `level` up to the console (`ConsoleLog`): every command's warnings (the
    app's callback calls it first), and a server's notes as well. The handler is added once however often called."""
    log = logging.getLogger("arena")
    log.setLevel(min(log.level or logging.WARNING, level))
    if not any(isinstance(handler, ConsoleLog) for handler in log.handlers):
        log.addHandler(ConsoleLog())


def fail(message: str) -> NoReturn:
    """One clear line on stderr and exit status 2."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


@contextmanager
def user_errors():
    """Turns arena's errors (every one derives from ArenaError) into `fail`: one line, exit status 2."""
    from arena.errors import ArenaError

    try:
        yield
    except ArenaError as error:
        fail(str(error))


class Format(StrEnum):
    """Output formats of `arena ratings`."""

    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"


def run_config(settings, *, workers: int | None, address: str | None, resume: bool, overwrite: bool, out: Path,
               progress: bool, folder: Path | None = None, again: str = "run again with --resume") -> None:
    """Plays a config's run (to the end or until its stopping rule stops it) in OUT/<name>/ (or `folder`) and prints
    the tables; `again` says how to finish a run cut short."""
    from arena.api import finish_and_report
    from arena.cli.display import progress_bar
    from arena.cli.tables import format_tables
    from arena.results import RunDir
    from arena.tournament.runner import RayLost, play_missing
    from arena.web.formats import counted, model_use_lines, move_times_line, stop_lines, suspension_lines

    with user_errors():
        run = RunDir(folder or out / settings.name)
        try:
            with progress_bar(progress) as on_progress:
                report = play_missing(settings, run, workers=workers, address=address, resume=resume,
                                      overwrite=overwrite, on_progress=on_progress)
        except KeyboardInterrupt:
            fail(f"interrupted; every finished batch is saved in {run.results}: {again}")
        except RayLost as error:
            fail(f"{error}; every finished batch is saved in {run.results}: {again}")
        manifest, rated = finish_and_report(settings, run, report)
    typer.echo(format_tables(rated))
    for line in stop_lines(manifest.get("stop")) + suspension_lines(manifest.get("suspended")):
        typer.echo(line)
    typer.echo(f"{counted(manifest['games'], 'game')} in {manifest['wall_seconds']:.1f}s "
               f"({report.played_now:,} played now, {report.backend}, {counted(report.workers, 'worker')}); "
               f"digest {manifest['digest'][:16]}; run directory {run.path}")
    if (times := move_times_line(manifest.get("move_times"))) is not None:
        typer.echo(times)
    for line in model_use_lines(manifest.get("model_use")):
        typer.echo(f"model seat {line}")
    typer.echo(f"report: {run.report.resolve().as_uri()}; every table: arena ratings {run.path} --all")
