"""Pages tested in a real headless Chromium, driven by Playwright: the system's Chromium (Debian's `chromium`, which
`make browser` installs), never a browser of Playwright's own. One Chromium a test process, a fresh context (a profile
of its own) a test: the `chromium` and `browse` fixtures of conftest.py.

`open_page` records what a page does that the tests assert never happens: uncaught exceptions, console errors,
requests elsewhere, dialogs. `png_pixels` gives an image's pixels, for tests to look at a screenshot."""

from __future__ import annotations

import io
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import BrowserContext, Page


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) executable, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


needs_browser = pytest.mark.needs(
    "browser", None if find_chromium() else "Chromium is not installed (Debian: apt-get install chromium)")
"""A test that opens pages in Chromium (a failure where it is missing under ARENA_REQUIRE_BROWSER=1: conftest.py)."""


@dataclass
class Watched:
    """A page, and what happened while it was open."""

    page: Page
    exceptions: list[str] = field(default_factory=list)
    """Uncaught JavaScript exceptions."""
    console_errors: list[str] = field(default_factory=list)
    """console.error / console.assert messages and the browser's own errors (a resource that failed to load)."""
    requests: list[str] = field(default_factory=list)
    """The URL of every request the page made, the page's own included."""
    dialogs: list[str] = field(default_factory=list)
    """The message of every JavaScript dialog (alert, confirm, prompt) the page opened; each is dismissed at once,
    so the page goes on."""


def open_page(context: BrowserContext, path: Path | str, height: int = 900) -> Watched:
    """A local file or an http:// address opened and loaded in a new page of `context`, 1280 px wide and `height`
    tall, watched from its first request on."""
    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": height})
    seen = Watched(page)
    page.on("pageerror", lambda error: seen.exceptions.append(error.stack or str(error)))
    page.on("console", lambda message: message.type in ("error", "assert") and seen.console_errors.append(
        f"{message.location.get('url', '')}: {message.text}"))
    page.on("request", lambda request: seen.requests.append(request.url[:200]))
    page.on("dialog", lambda dialog: (seen.dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(path if str(path).startswith("http://") else Path(path).resolve().as_uri())
    return seen


def png_pixels(data: bytes) -> np.ndarray:
    """The pixels of a PNG as a (height, width, channels) uint8 array."""
    from PIL import Image

    image = Image.open(io.BytesIO(data))
    if image.format != "PNG":
        raise ValueError(f"not a PNG but {image.format}")
    return np.asarray(image)
