"""`arena league`: thin wrappers over arena/league/ (docs/league.md). Bad input gets one line and exit status 2."""

# No `from __future__ import annotations`: typer reads each command's parameters from their annotations, and as
# strings it evaluated them again every time it built the command, 20 ms of each `arena` start rather than 4.

import logging
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import WORKERS_HELP, Format, fail, log_to_console, run_config, user_errors

league_app = typer.Typer(help="A league that lives: bots added over time, rated against the field by the games a "
                         "matchmaker chooses (docs/league.md).", no_args_is_help=True)


def data_text(frame, format: Format) -> str | None:
    """A frame as csv or json for `--format csv|json`; None for the formats that are tables to read."""
    if format == Format.csv:
        return frame.to_csv(index=False, float_format="%.6f").rstrip("\n")
    if format == Format.json:
        return frame.to_json(orient="records", double_precision=6)
    return None


@league_app.command("new")
def league_new(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="The league directory to make.")],
    config: Annotated[Path, typer.Argument(help="League TOML, e.g. configs/league.toml.")],
) -> None:
    """Make a league from a league TOML (a tournament config without bots or deals).

    Example: arena league new club configs/league.toml
    """
    from arena.league import new_league

    with user_errors():
        settings = new_league(directory, config)
    typer.echo(f"league {settings.name!r} in {directory}: {', '.join(g.label for g in settings.games)}")


@league_app.command("add")
def league_add(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="The league directory.")],
    spec: Annotated[str, typer.Argument(help="A bot name, path/to/file.py:Class, a bot's folder or zip with a "
                                             "bot.toml, or a folder or zip of a package then :module:Class.")],
    name: Annotated[str | None, typer.Option(help="The bot's name in the league (default: its own).")] = None,
    games: Annotated[int, typer.Option(help="Validation games per game and rules variant.", min=1)] = 6,
    sandbox: Annotated[bool, typer.Option(help="Check the bot inside the sandbox; --no-sandbox: in a plain "
                                               "process.")] = True,
) -> None:
    """Check a bot as `arena submit` does and freeze its code into the league; changed code under a known name
    is a new version (NAME@2), the same code again changes nothing.

    A folder or zip holds a bot.toml at its root: entry = "mybot.core:MyBot" (a Python package),
    or command = "./mybot" (a program speaking docs/protocol.md, run in its folder). Examples:

    arena league add club heuristic

    arena league add club docs/example_bot.py:CountingBot

    arena league add club mybot/

    arena league add club mybot.zip

    arena league add club mybot.zip:mybot.core:MyBot   (a package without a bot.toml)"""
    from arena.league.frozen import add_bot

    with user_errors():
        added = add_bot(directory, spec, name=name, sandboxed=sandbox, games_per_rules=games)
    if added.problems:
        fail(f"{added.bot.name!r} failed its checks, the league is unchanged: {added.problems[0]}")
    bot = added.bot
    if not added.new:
        typer.echo(f"unchanged: the same code is already in the league as {bot.label!r} ({bot.status})")
        return
    typer.echo(f"added {bot.label!r} (version {bot.version}, {bot.kind}, code {bot.hash[:12]}), plays "
               f"{', '.join(bot.games)}")


@league_app.command("retire")
def league_retire(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="The league directory.")],
    bot: Annotated[str, typer.Argument(metavar="NAME[@V]", help="NAME@V: that version; NAME: every version.")],
) -> None:
    """Stop a bot playing: NAME@V that version only, NAME every version (the answer says which); its games stay in
    the league and in its history.

    Example: arena league retire club counting@2
    """
    from arena.league.frozen import set_status

    with user_errors():
        change = set_status(directory, bot, "retired")
    typer.echo(change.text())


@league_app.command("reinstate")
def league_reinstate(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="The league directory.")],
    bot: Annotated[str, typer.Argument(metavar="NAME@V", help="NAME@V: that version; NAME: every version.")],
) -> None:
    """A retired or suspended bot plays again (a suspended one's stalls counted afresh): NAME@V that version only,
    NAME every version (the answer says which).

    Example: arena league reinstate club counting@2
    """
    from arena.league.frozen import set_status

    with user_errors():
        change = set_status(directory, bot, "active")
    typer.echo(change.text())


@league_app.command("entrant")
def league_entrant(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="The league directory.")],
    name: Annotated[str, typer.Argument(help="The entrant's name.")],
    revoke: Annotated[bool, typer.Option(help="Withdraw the entrant's token instead.")] = False,
) -> None:
    """Give an entrant a new token to upload bots with (printed once, alone on the last line; an earlier token of
    theirs stops working), or withdraw it with --revoke. The league keeps only a slow hash of it.

    Example: arena league entrant club alice
    """
    from arena.league.entrants import new_token, revoke_token

    with user_errors():
        if revoke:
            withdrawn = revoke_token(directory, name)
            typer.echo(f"revoked the token of {name!r}" if withdrawn else f"unchanged: {name!r} had no token")
            return
        token = new_token(directory, name)
    typer.echo(f"the token of {name!r}, shown this once (send it with `arena league upload --token`):")
    typer.echo(token)


@league_app.command("upload")
def league_upload(
    url: Annotated[str, typer.Argument(help="The league's address, e.g. http://club.example:8000/.")],
    spec: Annotated[str, typer.Argument(help="The bot: path/file.py:Class, a folder or zip with a bot.toml, "
                                              "folder-or.zip:module:Class, or a registered name.")],
    token: Annotated[str | None, typer.Option(envvar="ARENA_LEAGUE_TOKEN", show_envvar=True,
                                              help="Your entrant token (from the league's organiser).")] = None,
    name: Annotated[str | None, typer.Option(help="The bot's name in the league (default: its own).")] = None,
    class_name: Annotated[str | None, typer.Option("--class", help="The bot's class, if the file has several.")]
    = None,
    wait: Annotated[float, typer.Option(help="Seconds to wait for the verdict.", min=1)] = 600,
) -> None:
    """Upload a bot to a served league and wait until it is checked: prints its label (exit 0), `unchanged: NAME@V
    (STATUS)` for code the league holds already (exit 0, nothing reinstated), or why it was refused (exit 2).

    Example: arena league upload http://127.0.0.1:8000 mybot.py:MyBot --token $TOKEN --wait 120
    """
    from arena.server.client import upload_bot

    if not token:
        fail("no token: give --token TOKEN or set ARENA_LEAGUE_TOKEN (the token the league's organiser gave you)")
    with user_errors():
        verdict = upload_bot(url, spec, token, name=name, class_name=class_name, wait=wait)
    if verdict.status == "refused":
        fail(f"refused: {verdict.reason}")
    typer.echo(verdict.reason if verdict.status == "unchanged" else f"accepted as {verdict.label!r}")


class Until(StrEnum):
    """When `arena league play` stops besides its budget."""

    settled = "settled"


@league_app.command("play")
def league_play(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="The league directory.")],
    games: Annotated[int | None, typer.Option(help="Budget: play rounds until this many games are played "
                                                   "(a round is cut to the tables that fit).", min=1)] = None,
    rounds: Annotated[int | None, typer.Option(help="Play at most this many rounds.", min=1)] = None,
    until: Annotated[Until | None, typer.Option(help="settled: stop once every variant's order is settled.")] = None,
    workers: Annotated[int | None, typer.Option(help=WORKERS_HELP)] = None,
    address: Annotated[str | None, typer.Option(help="Run on the Ray cluster at this address (host:port).")] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Play the rounds the matchmaker chooses: newcomers first, then the pairs whose order is least certain.

    With no --games, --rounds or --until, one round. A play that was stopped finishes its round first.
    Example: arena league play club --games 20000 --workers 2
    """
    from arena.cli.display import progress_bar
    from arena.league.play import play_league
    from arena.web.formats import counted

    with user_errors():
        try:
            with progress_bar(progress) as on_progress:
                report = play_league(directory, games=games, until_settled=until == Until.settled, rounds=rounds,
                                     workers=workers, address=address, on_progress=on_progress)
        except KeyboardInterrupt:
            fail("interrupted; every finished batch is saved: `arena league play` finishes the round")
    rounds_text = (f"rounds {report.rounds[0]}-{report.rounds[-1]}" if len(report.rounds) > 1 else
                   f"round {report.rounds[0]}" if report.rounds else "no round")
    typer.echo(f"{rounds_text}: {counted(report.played_now, 'game')} played ({report.backend}); "
               f"stopped: {report.stopped}")
    for label in report.suspended:
        typer.echo(f"suspended {label!r}: it stalled (the wall-clock backstop ended its calls); "
                   f"`arena league reinstate {directory} {label}` or a new version makes it play again")


@league_app.command("close")
def league_close(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="The league directory.")],
    at: Annotated[str | None, typer.Option(help="When entries close, RFC 3339 (e.g. 2026-12-01T18:00:00Z); "
                                                "default: now. Overrides league.toml's [season] closes.")] = None,
) -> None:
    """Close entries: from then on `arena league add` and entrants' uploads are refused (uploads get 403), and the
    pages say when entries closed. Play goes on; `arena league final` plays the final on the frozen field. Safe to
    repeat: closed entries stay closed at the time they closed; --at moves a close only before the final starts.

    Example: arena league close club --at 2026-12-01T18:00:00Z
    """
    from datetime import UTC, datetime

    from arena.league.season import close_entries, shown_time

    with user_errors():
        moment, changed = close_entries(directory, at)
    if moment > datetime.now(UTC):
        typer.echo(f"entries close at {shown_time(moment)}{'' if changed else ' (unchanged)'}")
    elif changed:
        typer.echo(f"entries closed at {shown_time(moment)}; the final: arena league final {directory}")
    else:
        typer.echo(f"entries closed at {shown_time(moment)} already; nothing changed")


@league_app.command("final")
def league_final(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="The league directory.")],
    deals: Annotated[int | None, typer.Option(help="Deals a table plays, each in every seat rotation (default 100); "
                                                   "with --until settled, the most.", min=1)] = None,
    until: Annotated[Until | None, typer.Option(help="settled: play rounds of deals until each table is "
                                                     "settled.")] = None,
    workers: Annotated[int | None, typer.Option(help=WORKERS_HELP)] = None,
    address: Annotated[str | None, typer.Option(help="Run on the Ray cluster at this address (host:port).")] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Play the season's final once entries are closed: a round robin of every active bot's latest version in every
    variant of the league, on duplicate deals, from the league's frozen code, as the run folder DIR/final/ (`arena
    ratings`, `report`, `replay` and `reproduce` work on it). Run it again to finish a final cut short. One final at
    a time: a second one started meanwhile is refused at once.

    Example: arena league final club --deals 200 --workers 2
    """
    from contextlib import ExitStack

    from arena.league import LeagueDir, load_settings
    from arena.league.season import final_lock, final_run

    with ExitStack() as held:
        with user_errors():
            league = LeagueDir(directory)  # league.toml read once for the command
            settings = load_settings(league)
            held.enter_context(final_lock(league))  # held until the final is rated and its report written
            config, run, left_out = final_run(league, deals=deals, until_settled=until == Until.settled)
        for line in left_out:
            typer.echo(f"note: {line}")
        run_config(config, workers=workers, address=address or settings.run.address, resume=True, overwrite=False,
                   out=Path(), progress=progress, folder=run.path,
                   again=f"run `arena league final {directory}` again")


@league_app.command("export")
def league_export(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="The league directory.")],
    out: Annotated[Path, typer.Argument(metavar="OUT.parquet", help="The Parquet file to write.")],
    game: Annotated[str | None, typer.Option(help="Only this game (or variant label).")] = None,
) -> None:
    """Write the league's finished games as one Parquet file (a row per game: the run's result columns, players by
    label, and the round), for training bots. Safe to run while the league plays.

    Example: arena league export club games.parquet --game caterpillar
    """
    from arena.league.games import export_games
    from arena.web.formats import counted

    with user_errors():
        count = export_games(directory, out, game)
    typer.echo(f"wrote {counted(count, 'game')} to {out}")


@league_app.command("table")
def league_table(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="The league directory.")],
    game: Annotated[str | None, typer.Option(help="Only this game (or variant label).")] = None,
    format: Annotated[Format, typer.Option(help="Output format.")] = Format.table,
    history: Annotated[bool, typer.Option(
        help="Each bot's mu after every round (past 12 rounds, every k-th) instead.")] = False,
    pairs: Annotated[bool, typer.Option(
        help="Each adjacent pair of the order instead: its difference, the interval `--until settled` stops on, "
             "and whether it is settled.")] = False,
) -> None:
    """The standing table over every game of the finished rounds: the columns of `arena ratings`, and each
    bot's version, status and when it was added. Safe to run while `play` plays.

    Example: arena league table club --pairs --format csv
    """
    import pandas as pd

    from arena.cli.display import console, table
    from arena.cli.tables import history_tables, markdown_table, misfit_lines, model_name, ranking_frame
    from arena.league.standings import history_frame, pair_frame, standing_frames
    from arena.web.formats import interval

    if history and pairs:
        fail("--history and --pairs: choose one")
    with user_errors():
        if pairs:
            frame = pair_frame(directory, game)
            if (data := data_text(frame, format)) is not None:
                typer.echo(data)
            elif frame.empty:
                typer.echo("no adjacent pair yet: `arena league play` plays a round")
            else:
                shown = pd.DataFrame({
                    "variant": frame["variant"], "bot": frame["bot"], "next": frame["next"],
                    "diff [anytime 95% CI]": [interval(*r, 2) for r in zip(
                        frame["diff"], frame["diff_lo"], frame["diff_hi"], strict=True)],
                    "settled": frame["settled"], "companies met": frame["met"].map("{:.0%}".format)})
                if format == Format.markdown:
                    typer.echo(markdown_table(shown))
                else:
                    out = console()
                    out.print(table(*shown.columns, ids=("variant", "bot", "next"), rows=shown.itertuples(index=False),
                                    width=out.width))
            return
        if history:
            frame = history_frame(directory, game)
            if (data := data_text(frame, format)) is not None:
                typer.echo(data)
            elif format == Format.markdown:
                typer.echo("\n\n".join(f"### {title}\n\n{markdown_table(shown)}"
                                       for title, shown in history_tables(frame)))
            else:
                out = console()
                for title, shown in history_tables(frame):
                    out.print(title)  # on its own line: a title inside a narrow table would wrap to its width
                    out.print(table(*shown.columns, ids=tuple(shown.columns), rows=shown.itertuples(index=False),
                                    width=out.width))
            return
        rated, frames = standing_frames(directory, game)
    if not frames:
        typer.echo("no finished round yet: `arena league play` plays one")
        return
    if format in (Format.csv, Format.json):
        merged = pd.concat([frame.assign(variant=variant) for variant, frame in frames.items()], ignore_index=True)
        typer.echo(merged.to_csv(index=False, float_format="%.6f").rstrip("\n") if format == Format.csv
                   else merged.to_json(orient="records", double_precision=10))
        return
    out, parts = console(), []
    for variant, frame in frames.items():
        shown = ranking_frame(frame, full=True)
        shown.insert(2, "version", frame["version"].astype(str).to_list())
        shown.insert(3, "added", [text[:10] for text in frame["added"]])
        shown.insert(4, "status", frame["status"].to_list())
        title = (f"{variant} ({model_name(rated[variant])}, every game of the league; intervals count deals; "
                 "2= shares a tier)")
        notes = misfit_lines(rated[variant])
        if format == Format.markdown:
            parts += [f"### {title}", "", markdown_table(shown), "", *notes, *([""] if notes else [])]
        else:
            out.print(table(*shown.columns, ids=("rank", "bot"), rows=shown.itertuples(index=False), title=title,
                            width=out.width))
            for note in notes:
                out.print(note, markup=False)
    if parts:
        typer.echo("\n".join(parts).rstrip("\n"))
    from arena.league.catalog import Catalog

    shown = {bot for frame in frames.values() for bot in frame["bot"]}
    catalog = Catalog(directory)
    try:
        for bot in catalog.bots("suspended"):
            if bot.label in shown:
                typer.echo(f"{bot.label}: {bot.reason}")
    finally:
        catalog.close()


@league_app.command("report")
def league_report(directory: Annotated[Path, typer.Argument(metavar="DIR", help="The league directory.")]) -> None:
    """Write the league's HTML leaderboard (DIR/leaderboard/index.html), a page per bot, and print its path.

    Example: arena league report club
    """
    from arena.league.pages import write_league_report

    with user_errors():
        path = write_league_report(directory)
    typer.echo(f"wrote {path}")


@league_app.command("serve")
def league_serve(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="The league directory.")],
    host: Annotated[str, typer.Option(help="The address to listen on (the default: this machine only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on (0: any free one).", min=0, max=65535)] = 8000,
    play: Annotated[bool, typer.Option(help="Keep playing the league while serving it, holding play.lock "
                                            "(--no-play: only serve it).")] = True,
    workers: Annotated[int | None, typer.Option(help=WORKERS_HELP)] = None,
    address: Annotated[str | None, typer.Option(help="Play on the Ray cluster at this address (host:port).")] = None,
) -> None:
    """Serve the league over HTTP (leaderboard, bot pages, round log, replays, a JSON API) and, unless --no-play,
    keep playing it: idle once every variant is settled, awake again when a bot is added.

    Example: arena league serve club --port 8000
    """
    from arena.server.app import serve

    log_to_console(logging.INFO)  # the address it listens on, then the server's warnings and errors
    with user_errors():
        try:
            serve(directory, host=host, port=port, play=play, workers=workers, address=address)
        except KeyboardInterrupt:
            pass
