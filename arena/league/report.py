"""`arena league report`: the leaderboard as self-contained HTML pages in DIR/leaderboard/: `index.html` (a
table per variant) and a page per bot (its versions, its row, its pairings, and a replay of its first game in
each variant). The pages load nothing from anywhere; they are written atomically, from one catalog snapshot."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd

from arena.atomic import write_atomic
from arena.display import counted
from arena.league import load_settings
from arena.league.catalog import BotRow, RoundRow
from arena.league.directory import LeagueDir
from arena.league.standings import snapshot, standing_frames

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
th, td { padding: 0.25rem 0.6rem; border-bottom: 1px solid #ddd; text-align: right; }
th { background: #f3f3f3; } td.name, th.name { text-align: left; }
.retired { color: #888; } .muted { color: #666; font-size: 0.9em; }
"""


def page_name(label: str) -> str:
    """A bot's page file: its label with anything but letters, digits, - _ . made safe."""
    return "bot-" + re.sub(r"[^A-Za-z0-9_.-]", lambda m: f"~{ord(m[0]):x}", label) + ".html"


def write_league_report(directory: Path) -> Path:
    """Writes the leaderboard pages; returns the index page's path."""
    directory = Path(directory)
    settings = load_settings(directory)
    bots, rounds = snapshot(directory)
    rated, frames = standing_frames(directory, taken=(bots, rounds))
    out = LeagueDir(directory).leaderboard
    games = sum(r.games for r in rounds)
    body = [f"<h1>League {_e(settings.name)}</h1>",
            f"<p class=muted>{counted(len(bots), 'bot')} ({sum(b.status == 'active' for b in bots)} active), "
            f"{counted(len(rounds), 'round')}, {counted(games, 'game')}. Batch TrueSkill over every game of the "
            "finished rounds; intervals count deals; <b>2=</b> shares a tier.</p>"]
    if not frames:
        body.append("<p>No finished round yet: <code>arena league play</code> plays one.</p>")
    for variant, frame in frames.items():
        body += [f"<h2 id='{_e(variant)}'>{_e(variant)}</h2>", _leaderboard(frame)]
    never = [b for b in bots if not any(b.label in set(f["bot"]) for f in frames.values())]
    if never:
        body.append("<p class=muted>Not rated yet: " + ", ".join(_link(b.label) for b in never) + ".</p>")
    index = LeagueDir(directory).report
    write_atomic(index, _page(f"League {settings.name}", body).encode())
    for bot in bots:
        versions = [b for b in bots if b.name == bot.name]
        write_atomic(out / page_name(bot.label),
                     _bot_page(directory, settings.name, bot, versions, rated, frames, rounds, out).encode())
    return index


def _leaderboard(frame: pd.DataFrame) -> str:
    rows = []
    for r in frame.itertuples(index=False):
        rows.append(f"<tr class='{_e(r.status)}'><td>{_e(r.rank)}</td><td class=name>{_link(r.bot)}</td>"
                    f"<td>{r.version}</td><td>{_e(r.added[:10])}</td><td class=name>{_e(r.status)}</td>"
                    f"<td>{r.mu:.2f} [{r.mu_lo:.2f}, {r.mu_hi:.2f}]</td><td>{r.games:,}</td><td>{r.deals:,}</td>"
                    f"<td>{r.win_rate:.3f} [{r.win_rate_lo:.3f}, {r.win_rate_hi:.3f}]</td>"
                    f"<td>{r.mean_score:.1f} [{r.mean_score_lo:.1f}, {r.mean_score_hi:.1f}]</td>"
                    f"<td>{r.forfeits}</td></tr>")
    head = ("<tr><th>rank</th><th class=name>bot</th><th>version</th><th>added</th><th class=name>status</th>"
            "<th>mu [95% CI]</th><th>games</th><th>deals</th><th>win rate [95% CI]</th>"
            "<th>mean score [95% CI]</th><th>forfeits</th></tr>")
    return f"<table class=leaderboard>{head}{''.join(rows)}</table>"


def _bot_page(directory: Path, league: str, bot: BotRow, versions: list[BotRow], rated: dict, frames: dict,
              rounds: list[RoundRow], out: Path) -> str:
    body = [f"<p><a href='index.html'>&larr; League {_e(league)}</a></p>", f"<h1>{_e(bot.label)}</h1>",
            "<h2>Versions</h2><table><tr><th class=name>bot</th><th>version</th><th class=name>code</th>"
            "<th>added</th><th class=name>status</th></tr>"]
    for v in versions:
        body.append(f"<tr class='{_e(v.status)}'><td class=name>{_link(v.label)}</td><td>{v.version}</td>"
                    f"<td class=name><code>{_e(v.hash[:12])}</code> {_e(v.kind)}</td><td>{_e(v.added[:10])}</td>"
                    f"<td class=name>{_e(v.status)}</td></tr>")
    body.append("</table>")
    for variant, frame in frames.items():
        if bot.label not in set(frame["bot"]):
            continue
        body += [f"<h2>{_e(variant)}</h2>", _leaderboard(frame[frame["bot"] == bot.label])]
        pairs = rated[variant].pairs
        mine = pairs[pairs["bot"] == bot.label]
        body.append("<h3>Pairings</h3><table><tr><th class=name>opponent</th><th>games</th><th>deals</th>"
                    "<th>ranked above [95% CI]</th><th>mu diff [95% CI]</th><th>LOS</th></tr>")
        for p in mine.itertuples(index=False):
            body.append(f"<tr><td class=name>{_link(p.opponent)}</td><td>{p.games:,}</td><td>{p.deals:,}</td>"
                        f"<td>{p.win_rate:.3f} [{p.win_rate_lo:.3f}, {p.win_rate_hi:.3f}]</td>"
                        f"<td>{p.mu_diff:+.2f} [{p.mu_diff_lo:+.2f}, {p.mu_diff_hi:+.2f}]</td>"
                        f"<td>{p.los:.3f}</td></tr>")
        body.append("</table>")
        replay = _first_game_replay(directory, bot.label, variant, rounds, out)
        if replay:
            body.append(f"<p>Replay: <a class=replay href='{_e(replay)}'>its first game in {_e(variant)}</a></p>")
    return _page(f"{bot.label} in the league {league}", body)


def _first_game_replay(directory: Path, label: str, variant: str, rounds: list[RoundRow], out: Path) -> str | None:
    """Writes the replay page of the bot's first game in `variant`; its file name, or None when it cannot be
    replayed here."""
    from functools import partial

    from arena.config import parse_config
    from arena.replay import replay_in_child, replay_scheduled
    from arena.replay_page import write_replay_page

    for round_ in rounds:
        entries = [i for i, t in enumerate(round_.plan) if t["variant"] == variant and label in t["bots"]]
        if not entries:
            continue
        config = parse_config(round_.config, base=directory)
        first = sum(g.deals * len(g.bots) for g in config.games[:entries[0]])  # the table's first game
        try:  # in a child under the round's time limits, as the run report replays its examples
            data = replay_in_child(partial(replay_scheduled, config, first), config.run.move_time_limit,
                                   config.run.setup_time_limit, round_.first_index + first)
        except Exception:  # noqa: BLE001 - a bot that cannot be replayed here (or hangs) costs its link only
            return None
        name = f"replay-{page_name(label)[4:-5]}-{round_.first_index + first}.html"
        write_replay_page(data, out / name)
        return name
    return None


def _link(label: str) -> str:
    return f"<a href='{page_name(label)}'>{_e(label)}</a>"


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _page(title: str, body: list[str]) -> str:
    return ("<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
            "content='width=device-width, initial-scale=1'><title>" + _e(title) + "</title><style>" + STYLE
            + "</style></head><body>" + "\n".join(body) + "<script>document.body.dataset.ready = 'yes';</script>"
            "</body></html>\n")
