"""`arena league report`: the leaderboard as self-contained HTML pages in DIR/leaderboard/: `index.html` (a
table per variant) and a page per bot (its versions, its row, its pairings, and a replay of its first game in
each variant). The pages load nothing from anywhere; they are written atomically, from one catalog snapshot."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from arena.atomic import write_atomic
from arena.league import load_settings
from arena.league.catalog import BotRow, RoundRow
from arena.league.directory import LeagueDir
from arena.league.season import closing_time, shown_time
from arena.league.standings import head_to_head, pair_frame, snapshot, standing_frames, versions
from arena.web import environment
from arena.web.formats import places


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
    env = environment(league=settings.name, link=page_name, final=league.final.manifest.is_file())
    closes = closing_time(league)
    index = league.report
    write_atomic(index, env.get_template("league_index.html").render(
        bots=bots, active=sum(b.status == "active" for b in bots), rounds=len(rounds),
        games=sum(r.games for r in rounds), frames=frames,
        closes=None if closes is None else shown_time(closes),
        closed=closes is not None and closes <= datetime.now(UTC),
        unrated=[b.label for b in bots if not any(b.label in set(f["bot"]) for f in frames.values())]).encode())
    replays = _first_game_replays(league.path, [(b.label, v) for b in bots for v, f in frames.items()
                                              if b.label in set(f["bot"])], rounds, out)
    bot_page = env.get_template("league_bot.html")
    for bot in bots:
        write_atomic(out / page_name(bot.label),
                     bot_page.render(bot=bot, its_versions=versions(bots, bot.label),
                                     variants=_bot_variants(bot, rated, frames, adjacent, replays)).encode())
    return index


def _bot_variants(bot: BotRow, rated: dict, frames: dict, adjacent, replays: dict[tuple[str, str], str]) -> dict:
    """What a bot's page shows of each variant it is rated in: its row and place, the adjacent pairs it is in, its
    pairings and its first game's replay (each None when there is none)."""
    pairs = head_to_head(rated, bot.label)
    shown = {}
    for variant, frame in frames.items():
        mine = (frame["bot"] == bot.label).to_numpy()
        if not mine.any():
            continue
        near = adjacent[(adjacent["variant"] == variant)
                        & ((adjacent["bot"] == bot.label) | (adjacent["next"] == bot.label))]
        shown[variant] = {"rows": frame[mine],
                          "places": [place for place, own in zip(places(frame["pl_rank"]), mine, strict=True) if own],
                          "near": None if near.empty else near, "pairs": pairs.get(variant),
                          "replay": replays.get((bot.label, variant))}
    return shown


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
