"""The report's example replays: each example game regenerated from its seeds in a forked child, in time, and
written as a replay page beside the report."""

from __future__ import annotations

import html

from arena.ratings import VariantRatings
from arena.report.page import time_limits_of, variant_slugs
from arena.results import RunDir


def write_example_replays(run: RunDir, examples: dict[str, list[tuple[int, str]]],
                          ratings: dict[str, VariantRatings]) -> dict[str, list[str]]:
    """Writes the replay page of each example game (`example_games`) to RUN/replays/<variant slug>-<game
    index>.html and returns, per variant, the HTML of its links (relative to the report). A game that cannot
    be regenerated (a bot gone or changed) gets a note instead: the report itself must not fail for it."""
    from arena.config import ConfigError
    from arena.config.saved import saved_config
    from arena.report.replay_page import write_replay_page

    try:  # the bots checked once, here (each in a process of its own), not again in every replay's child
        saved_config(run)
    except ConfigError:
        pass  # each replay fails on it and gets its note
    slugs = variant_slugs(list(ratings))
    out: dict[str, list[str]] = {}
    for variant, games in examples.items():
        links = out.setdefault(variant, [])
        for index, why in games:
            name = f"{slugs[variant].removeprefix('game-')}-{index}.html"
            try:
                write_replay_page(_isolated_replay(run, index), run.path / "replays" / name)
            except Exception as error:  # noqa: BLE001 - any failure of one replay only costs its link
                links.append(f"game {index} ({html.escape(why)}): no replay ({html.escape(type(error).__name__)})")
                continue
            links.append(f"<a href='replays/{html.escape(name)}'>game {index}</a> ({html.escape(why)})")
    return out


def _isolated_replay(run: RunDir, index: int) -> dict:
    """`replay_game(run, index)` in a forked child, under the run's time limits
    (arena.tournament.replay.replay_in_child)."""
    from arena.tournament.replay import replay_game, replay_in_child

    limit, setup, wall = time_limits_of(run.read_config())
    return replay_in_child(lambda: replay_game(run, index), limit, setup, index, wall)
