"""`arena league report`: the leaderboard as self-contained HTML pages in DIR/leaderboard/: `index.html` (a
table per variant) and a page per bot (its versions, its row, its pairings, and a replay of its first game in
each variant). The pages load nothing from anywhere; they are written atomically, from one catalog snapshot."""

from __future__ import annotations

import html
import re
from pathlib import Path

from arena.atomic import write_atomic
from arena.league import load_settings
from arena.league.catalog import BotRow, RoundRow
from arena.league.directory import LeagueDir
from arena.league.html import tables
from arena.league.standings import head_to_head, pair_frame, snapshot, standing_frames, versions
from arena.report.formats import counted, places

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
th, td { padding: 0.25rem 0.6rem; border-bottom: 1px solid #ddd; text-align: right; }
th { background: #f3f3f3; } td.name, th.name { text-align: left; }
.retired, .suspended { color: #888; } .muted { color: #666; font-size: 0.9em; }
"""


def page_name(label: str) -> str:
    """A bot's page file: its label with anything but letters, digits, - _ . made safe."""
    return "bot-" + re.sub(r"[^A-Za-z0-9_.-]", lambda m: f"~{ord(m[0]):x}", label) + ".html"


def write_league_report(directory: LeagueDir | Path) -> Path:
    """Writes the leaderboard pages; returns the index page's path. The league's settings are read once for all
    of them (one LeagueDir passed down)."""
    league = LeagueDir.of(directory)
    settings = load_settings(league)
    bots, rounds = snapshot(league)
    adjacent = pair_frame(league, taken=(bots, rounds))
    rated, frames = standing_frames(league, taken=(bots, rounds), pairs=adjacent)
    out = league.leaderboard
    games = sum(r.games for r in rounds)
    shared = tables()
    body = [f"<h1>League {_e(settings.name)}</h1>",
            f"<p class=muted>{counted(len(bots), 'bot')} ({sum(b.status == 'active' for b in bots)} active), "
            f"{counted(len(rounds), 'round')}, {counted(games, 'game')}. {shared.standings_note()}</p>"]
    body += _season(league)
    if not frames:
        body.append("<p>No finished round yet: <code>arena league play</code> plays one.</p>")
    for variant, frame in frames.items():
        body += [f"<h2 id='{_e(variant)}'>{_e(variant)}</h2>",
                 str(shared.standings(variant, frame, places(frame["pl_rank"]), page_name))]
    never = [b for b in bots if not any(b.label in set(f["bot"]) for f in frames.values())]
    if never:
        body.append("<p class=muted>Not rated yet: " + ", ".join(_link(b.label) for b in never) + ".</p>")
    index = league.report
    write_atomic(index, _page(f"League {settings.name}", body).encode())
    replays = _first_game_replays(league.path, [(b.label, v) for b in bots for v, f in frames.items()
                                              if b.label in set(f["bot"])], rounds, out)
    for bot in bots:
        write_atomic(out / page_name(bot.label),
                     _bot_page(settings.name, bot, versions(bots, bot.label), rated, frames, adjacent,
                               replays).encode())
    return index


def _season(league: LeagueDir) -> list[str]:
    """When entries close or closed, and a link to the final's report once it is played (arena/league/season.py)."""
    from datetime import UTC, datetime

    from arena.league.season import closing_time, shown_time

    closes = closing_time(league)
    final = "<a href='../final/report.html'>The final</a> is played." if league.final.manifest.is_file() else ""
    if closes is None and not final:
        return []
    when = "" if closes is None else \
        f"Entries {'closed' if closes <= datetime.now(UTC) else 'close'} at {shown_time(closes)}. "
    return [f"<p id=season>{when}{final}</p>"]


def _bot_page(league: str, bot: BotRow, its_versions: list[BotRow], rated: dict, frames: dict, adjacent,
              replays: dict[tuple[str, str], str]) -> str:
    shared = tables()
    body = [f"<p><a href='index.html'>&larr; League {_e(league)}</a></p>", f"<h1>{_e(bot.label)}</h1>",
            "<h2>Versions</h2>", str(shared.versions(its_versions, page_name))]
    pairs = head_to_head(rated, bot.label)
    for variant, frame in frames.items():
        if bot.label not in set(frame["bot"]):
            continue
        mine = (frame["bot"] == bot.label).to_numpy()
        shown = [place for place, own in zip(places(frame["pl_rank"]), mine, strict=True) if own]
        body += [f"<h2>{_e(variant)}</h2>", str(shared.standings(variant, frame[mine], shown, page_name))]
        near = adjacent[(adjacent["variant"] == variant)
                        & ((adjacent["bot"] == bot.label) | (adjacent["next"] == bot.label))]
        if not near.empty:
            body += ["<h3>Neighbours in the order</h3>", str(shared.neighbours(near, bot.label, page_name))]
        if variant in pairs:
            body += ["<h3>Pairings</h3>", str(shared.head_to_head(pairs[variant], page_name))]
        replay = replays.get((bot.label, variant))
        if replay:
            body.append(f"<p>Replay: <a class=replay href='{_e(replay)}'>its first game in {_e(variant)}</a></p>")
    return _page(f"{bot.label} in the league {league}", body)


def _first_game_replays(directory: Path, wanted: list[tuple[str, str]], rounds: list[RoundRow],
                        out: Path) -> dict[tuple[str, str], str]:
    """Writes the replay page of each (bot, variant)'s first game, all replayed by one child process under the replays'
    time limit as the run report replays its examples; the file name of each, leaving out those that cannot be
    replayed here (a bot that hangs or kills its process costs its link only)."""
    import tomllib

    from arena.league.rounds import replay_league_games
    from arena.report.replay_page import write_replay_page

    first: dict[tuple[str, str], int] = {}
    for label, variant in wanted:
        for round_ in rounds:
            entries = [i for i, t in enumerate(round_.plan) if t["variant"] == variant and label in t["bots"]]
            if entries:  # a round plays each table in every seat rotation: deals x players games a table
                tables = tomllib.loads(round_.config)["games"][:entries[0]]
                first[label, variant] = round_.first_index + sum(t["deals"] * len(t["bots"]) for t in tables)
                break
    names = {}
    replayed = replay_league_games(directory, list(first.values())) if first else []
    for ((label, variant), index), data in zip(first.items(), replayed, strict=True):
        if not isinstance(data, Exception):
            names[label, variant] = f"replay-{page_name(label)[4:-5]}-{index}.html"
            write_replay_page(data, out / names[label, variant])
    return names


def _link(label: str) -> str:
    return f"<a href='{page_name(label)}'>{_e(label)}</a>"


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _page(title: str, body: list[str]) -> str:
    return ("<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
            "content='width=device-width, initial-scale=1'><title>" + _e(title) + "</title><style>" + STYLE
            + "</style></head><body>" + "\n".join(body) + "<script>document.body.dataset.ready = 'yes';</script>"
            "</body></html>\n")
