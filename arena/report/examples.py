"""The report's example replays: the example games regenerated from their seeds in a child process, each in time
(here, when every bot is arena's own), and written as replay pages beside the report."""

from __future__ import annotations

from arena.ratings import VariantRatings
from arena.report.page import variant_slugs
from arena.results import RunDir


def write_example_replays(run: RunDir, examples: dict[str, list[tuple[int, str]]],
                          ratings: dict[str, VariantRatings]) -> dict[str, list[dict]]:
    """Writes the replay page of each example game (`example_games`) to RUN/replays/<variant slug>-<game
    index>.html and returns, per variant, each game's `index`, `why` it was chosen and its replay's `href` (relative
    to the report). A game that cannot be regenerated (a bot gone or changed, or one that hangs or kills its process)
    gets the `error` instead, which the report notes: the report itself must not fail for it. The games are
    replayed by one child process (`replay_games`), a new one only after a game that ended its child, or here when
    every bot is arena's own."""
    from arena.report.replay_page import write_replay_page
    from arena.tournament.replay import replay_games

    slugs = variant_slugs(list(ratings))
    games = [(variant, index, why) for variant, chosen in examples.items() for index, why in chosen]
    replayed = replay_games(run, [index for _, index, _ in games], own_here=True) if games else []
    out: dict[str, list[dict]] = {variant: [] for variant in examples}
    for (variant, index, why), data in zip(games, replayed, strict=True):
        name = f"{slugs[variant].removeprefix('game-')}-{index}.html"
        try:
            if isinstance(data, Exception):
                raise data
            write_replay_page(data, run.path / "replays" / name)
        except Exception as error:  # noqa: BLE001 - any failure of one replay only costs its link
            out[variant].append({"index": index, "why": why, "href": None, "error": str(error)})
            continue
        out[variant].append({"index": index, "why": why, "href": f"replays/{name}", "error": None})
    return out
