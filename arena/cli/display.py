"""Text output on the terminal: a console, a table that is never cut, and the progress bar. The rating tables are
written in `arena.cli.tables`, which the commands that show no ratings never import (pandas with it)."""

from __future__ import annotations

from contextlib import contextmanager

PIPE_WIDTH = 200
"""Columns of a table printed to a pipe or a file: wide enough that rows are not wrapped."""


def output_width() -> int:
    """Columns of text output: the terminal's, or PIPE_WIDTH when stdout is not a terminal (rich's 80
    columns would wrap and cut every table written to a file)."""
    import shutil
    import sys

    return shutil.get_terminal_size().columns if sys.stdout.isatty() else PIPE_WIDTH


def console():
    """A rich console on stdout, output_width() wide, with colour only on a terminal."""
    import sys

    from rich.console import Console

    return Console(width=output_width(), force_terminal=None if sys.stdout.isatty() else False)


def table(*columns: str, ids: tuple[str, ...] = (), rows=(), title: str | None = None, width: int | None = None):
    """A rich table that is never cut: the `ids` columns do not wrap at all, the others wrap only between
    words (a number or an interval's bound is never split). When the console is narrower than the table
    (`width`), the vertical rules go, which is what lets a rating table fit 80 columns."""
    from rich import box
    from rich.table import Table

    rows = [list(map(str, row)) for row in rows]
    cells = lambda i: [columns[i], *(row[i] for row in rows)]
    natural = sum(max(map(len, cells(i))) + 3 for i in range(len(columns))) + 1
    narrow = width is not None and natural > width
    shown = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD if narrow else box.HEAVY_HEAD,
                  collapse_padding=narrow)
    for i, name in enumerate(columns):
        if name in ids:
            shown.add_column(name, no_wrap=True, min_width=max(map(len, cells(i))))
        else:
            shown.add_column(name, overflow="fold", min_width=max(len(word) for cell in cells(i) for word in
                                                                  cell.split() or [""]))
    for row in rows:
        shown.add_row(*row)
    return shown


@contextmanager
def progress_bar(enabled: bool):
    """A rich progress bar (games done, games/s, ETA, a stopping rule's note) fed by `on_progress(done, total,
    note)` calls; under a stopping rule the total is the most the run may still play."""
    if not enabled:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("games"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
               TextColumn("{task.fields[rate]} games/s"), TimeElapsedColumn(), TextColumn("ETA"),
               TimeRemainingColumn(), TextColumn("{task.fields[note]}"))
    progress = Progress(*columns, transient=False)
    task = progress.add_task("games", total=None, rate="-", note="")

    def on_progress(done: int, total: int, note: str = "") -> None:
        if not progress.live.is_started:  # drawn from the first report on: a refused command draws no empty bar
            progress.start()
        progress.update(task, completed=done, total=total, note=note)
        speed = progress.tasks[0].speed
        progress.update(task, rate=f"{speed:,.0f}" if speed else "-")

    try:
        yield on_progress
    finally:
        if progress.live.is_started:
            progress.stop()
