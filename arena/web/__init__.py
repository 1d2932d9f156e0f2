"""arena's pages in HTML: the one Jinja2 environment that renders every page arena writes or serves (the run report,
the league's static pages, the served league), its templates (`templates/`: `base.html`, the head, icon, style and
navigation every page shares, and the macros the pages repeat, `tables.html`), the shared style sheet and icon
(`static/`), and the numbers of `formats` as the templates' filters, so that a page writes an interval or a count as
the terminal does."""

from __future__ import annotations

import base64
from functools import cache
from pathlib import Path

import jinja2

from arena.web.formats import bounds, counted, interval, places, thousands

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"
"""The style sheet every page shares (inlined in a page that stands alone, `/static/style.css` on the server) and the
league's icon."""
FAVICON = STATIC / "favicon.ico"
"""The league's icon: a spade on green, 32 pixels square (a PNG in an ICO)."""


@cache
def icon_address() -> str:
    """The icon as a data: address, for a page that stands alone and loads nothing."""
    return "data:image/x-icon;base64," + base64.b64encode(FAVICON.read_bytes()).decode()


def environment(**page_globals) -> jinja2.Environment:
    """A Jinja2 environment of the templates and the style sheet, escaping every value, with the number formats as
    filters and `page_globals` (the server's `served=True` links its style sheet and icon rather than inlining them;
    `bot_href`, its address of a bot's page)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([TEMPLATES, STATIC]), autoescape=True)
    env.filters.update(interval=interval, bounds=bounds, counted=counted, places=places, thousands=thousands)
    env.globals.update({"served": False, "icon": icon_address()} | page_globals)
    return env
