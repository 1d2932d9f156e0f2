"""The league's tables in HTML: one set of Jinja2 macros (`templates/tables.html`: the standings, a bot's versions,
its head-to-head) that the static report (arena/league/pages.py) and the server's pages (arena/server/) both
render, with the number formats of `arena league table`."""

from __future__ import annotations

from pathlib import Path

import jinja2

from arena.report.formats import interval

TEMPLATES = Path(__file__).parent / "templates"
"""The folder of the shared macros; the server's template loader reads it after its own."""


def add_filters(env: jinja2.Environment) -> jinja2.Environment:
    """`env` with the filters the macros use (`interval`: a value and its bounds, a dash for an undefined one)."""
    env.filters["interval"] = interval
    return env


def tables_environment() -> jinja2.Environment:
    """A Jinja2 environment that reads the shared macros, escaping every value."""
    return add_filters(jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                                          undefined=jinja2.StrictUndefined))


def tables() -> jinja2.environment.TemplateModule:
    """The shared macros, to call from Python: `tables().standings(variant, frame, places, link)`."""
    return tables_environment().get_template("tables.html").module
