"""The `arena` command: thin wrappers over the library. Bad input gets one line and exit status 2."""

# No `from __future__ import annotations`: typer reads each command's parameters from their annotations, and as
# strings it evaluated them again every time it built the command, 20 ms of each `arena` start rather than 4.

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import WORKERS_HELP, Format, collect_less, fail, log_to_console, run_config, user_errors
from arena.cli.league import league_app

WALL_BACKSTOP_HELP = ("The wall-clock backstop: a call into a bot that sleeps or blocks ends after this many times its "
                      "limit in wall time (the limits count the bot's CPU time).")

app = typer.Typer(
    help="Tournaments and a bot arena for four card games by David Parlett.\n\n"
    "Examples:\n\n  arena games\n\n  arena play caterpillar random greedy --seed 7\n\n"
    "  arena tournament configs/quickstart.toml",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"arena {version('arena')}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[bool, typer.Option("--version", help="Print arena's version and exit.", callback=_version,
                                          is_eager=True)] = False,
) -> None:
    """Tournaments and a bot arena for four card games by David Parlett."""
    collect_less()
    log_to_console()  # what arena's modules warn of (a bot skipped, a batch replayed in quarantine) as `warning:` lines





def parse_rule_args(pairs: list[str]) -> dict[str, str]:
    """`["players=3", "jokers=true"]` as a dict; a pair without `=` fails."""
    rules = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            fail(f"--rule takes key=value, not {pair!r}")
        rules[key.strip()] = value.strip()
    return rules


@app.command()
def games() -> None:
    """List the games, their player counts and rules options (with defaults).

    Example: arena games
    """
    from arena.cli.display import console, table
    from arena.games import GAME_IDS, get_game
    from arena.games.base import rules_options

    rows = []
    for game_id in GAME_IDS:
        game = get_game(game_id)
        count = str(game.min_players)
        if game.max_players > game.min_players:
            count += f"-{game.max_players}"
        options = rules_options(game.Rules) or [{"name": "-", "default": "", "allowed": "", "help": ""}]
        for i, opt in enumerate(options):
            allowed = ", ".join(map(str, opt["allowed"])) if isinstance(opt["allowed"], tuple) else opt["allowed"] or ""
            default = str(opt["default"]).lower() if isinstance(opt["default"], bool) else str(opt["default"])
            rows.append((game_id if i == 0 else "", count if i == 0 else "", opt["name"], default, allowed,
                         opt["help"]))
    out = console()
    out.print(table("game", "players", "option", "default", "allowed", "meaning",
                    ids=("game", "players", "option", "default"), rows=rows, width=out.width))


@app.command()
def bots(game: Annotated[str | None, typer.Option(help="Only bots that can play this game.")] = None,
         forget: Annotated[str | None, typer.Option(help="Unregister this name (`arena submit` registered it).",
                                                    metavar="NAME")] = None) -> None:
    """List the bots that can be entered: bundled, dropped in bots/, registered, installed.

    Their files are read, not run: a class whose source does not say its name and games is asked in a process of
    its own, within a few seconds.

    Examples: arena bots --game caterpillar; arena bots --forget counting
    """
    from arena.bots.listing import listed_bots
    from arena.bots.registry import load_registry, unregister
    from arena.cli.display import console, table
    from arena.games import get_game

    if forget is not None:
        source = unregister(forget)
        if source is None:
            fail(f"no registered bot {forget!r} (registered: {', '.join(sorted(load_registry())) or 'none'})")
        typer.echo(f"forgot {forget!r} ({source.spec})")
        return
    with user_errors():
        if game is not None:
            get_game(game)
        rows = []
        for name, bot in sorted(listed_bots().items()):
            if game is None or bot.games is None or game in bot.games:
                rows.append((name, "any" if bot.games is None else ", ".join(bot.games), bot.about))
        out = console()
        out.print(table("bot", "games", "about", ids=("bot",), rows=rows, width=out.width))


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="Game id, e.g. caterpillar (see `arena games`).")],
    bots: Annotated[list[str], typer.Argument(
        help="One bot per seat, any form (a name, path/to/file.py:Class, a folder or zip, \"command: ...\"); human "
             "for a seat you play at the terminal.")],
    seed: Annotated[int, typer.Option(help="Seed of the deal and the bots' rngs.")] = 1,
    rule: Annotated[list[str] | None, typer.Option(help="A rules option, key=value; repeatable.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the transcript JSON.")] = False,
    html: Annotated[Path | None, typer.Option(
        "--html", metavar="FILE", help="Write a self-contained replay page of the game to FILE.")] = None,
    move_time_limit: Annotated[float, typer.Option(
        help="Seconds of its CPU time a bot may take per move (0: no limit); no limit when a seat is human.",
        min=0)] = 1.0,
    setup_time_limit: Annotated[float, typer.Option(
        help="Seconds of its CPU time a bot may take to be built, and for its reset.", min=0.001)] = 10.0,
    wall_backstop: Annotated[float, typer.Option(help=WALL_BACKSTOP_HELP, min=1)] = 10.0,
) -> None:
    """Play one game and print a readable account (or the transcript JSON).

    Example: arena play go_for_it random greedy random --rule jokers=true --seed 3

    Name a seat human to play it yourself (any seats; q or Ctrl-D leaves): arena play duke_of_york human random
    """
    from arena.api import play as play_game
    from arena.cli.human import HumanBot, LeaveGame
    from arena.tournament import referee

    with user_errors():
        # `human` is resolved here and nowhere else: it is not in the bot registry, so configs reject it.
        # With a human seat, moves are not timed: a person may think as long as they like.
        seats = [HumanBot() if spec == "human" else spec for spec in bots]
        limit = None if "human" in bots or not move_time_limit else move_time_limit
        try:
            data = play_game(game, seats, seed, parse_rule_args(rule or []), move_time_limit=limit,
                             setup_time_limit=setup_time_limit, wall_backstop=wall_backstop)
        except LeaveGame as left:  # q or Ctrl-D at a human seat: one line, exit 0, no account of half a game
            typer.echo(str(left))
            return
    if as_json:
        typer.echo(json.dumps(data))
    else:
        typer.echo("\n".join(referee.account(data)))
    if html is not None:
        from arena.report.replay_page import write_replay_page

        typer.echo(f"wrote {write_replay_page(data, html)}", err=as_json)  # stdout stays pure JSON under --json


def open_run(run: Path):
    """The run directory `run`, which must hold a run's config."""
    from arena.results import ResultsError, RunDir

    run_dir = RunDir(run)
    if not run_dir.config.is_file():
        raise ResultsError(f"{run}: not a run directory (no config.toml); runs live in reports/<name>/")
    return run_dir


@app.command()
def tournament(
    config: Annotated[Path, typer.Argument(help="Tournament config (TOML), e.g. configs/quickstart.toml.")],
    workers: Annotated[int | None, typer.Option(help=WORKERS_HELP)] = None,
    address: Annotated[str | None, typer.Option(help="Run on the Ray cluster at this address (host:port).")] = None,
    batch_size: Annotated[int | None, typer.Option(help="Games per task (overrides the config).", min=1)] = None,
    resume: Annotated[bool, typer.Option(help="Finish an interrupted run: play only what is missing.")] = False,
    overwrite: Annotated[bool, typer.Option(help="Discard an existing run of this name and start afresh.")] = False,
    out: Annotated[Path, typer.Option(help="Folder that holds the run directories.")] = Path("reports"),
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Run a round-robin tournament and print its rating tables.

    Results go to OUT/<name>/ (config.toml, manifest.json, results/*.parquet, ratings.csv,
    summary.csv, report.html). Example: arena tournament configs/quickstart.toml --workers 2
    """
    import dataclasses

    from arena.config import load_config

    with user_errors():
        settings = load_config(config)
        if batch_size:
            settings = dataclasses.replace(settings, run=dataclasses.replace(settings.run, batch_size=batch_size))
    run_config(settings, workers=workers, address=address, resume=resume, overwrite=overwrite, out=out,
               progress=progress)


class SprtModel(StrEnum):
    """What the bounds of `arena match --sprt` are."""

    logistic = "logistic"
    nelo = "nelo"


@app.command()
def match(
    game: Annotated[str, typer.Argument(help="Game id, e.g. caterpillar.")],
    first: Annotated[str, typer.Argument(metavar="A", help="The bot tested, any form: a name, path/to/file.py:Class, "
                                         "a folder or zip, \"command: ...\".")],
    second: Annotated[str, typer.Argument(metavar="B", help="Its opponent (may be A again: a self-match).")],
    sprt: Annotated[str, typer.Option(
        help="The test: elo0,elo1[,alpha,beta]. H0: A is elo0 Elo stronger than B; H1: elo1.")] = "0,5,0.05,0.05",
    max_deals: Annotated[int, typer.Option(help="Stop undecided after this many deals.", min=1)] = 2000,
    rule: Annotated[list[str] | None, typer.Option("--rules", "--rule",
                                                   help="A rules option, key=value; repeatable.")] = None,
    players: Annotated[int | None, typer.Option(help="Seats per table (Go For It); the others seat --field bots.",
                                                min=2)] = None,
    field: Annotated[str, typer.Option(help="The bot that fills the seats beyond A and B.")] = "random",
    seed: Annotated[int, typer.Option(help="Seed of the deals.")] = 1,
    sprt_model: Annotated[SprtModel, typer.Option(
        help="What elo0 and elo1 are: logistic Elo, or normalized Elo (nelo) as fastchess has it.")] = "logistic",
    workers: Annotated[int | None, typer.Option(help=WORKERS_HELP)] = None,
    address: Annotated[str | None, typer.Option(help="Run on the Ray cluster at this address (host:port).")] = None,
    resume: Annotated[bool, typer.Option(help="Finish an interrupted match.")] = False,
    overwrite: Annotated[bool, typer.Option(help="Discard an existing match of this name and start afresh.")] = False,
    out: Annotated[Path, typer.Option(help="Folder that holds the run directories.")] = Path("reports"),
    progress: Annotated[bool, typer.Option(help="Show the live progress line.")] = True,
) -> None:
    """A head-to-head on duplicate deals that stops when a sequential test decides.

    Every deal is played in every seat rotation. The SPRT reads each deal's score (A's
    points against B, averaged over the rotations). The end prints the pentanomial counts
    of the deal pairs (two players) and one line: H0 accepted, H1 accepted or undecided
    (exit 0 in all three). The match is a run directory like any other (OUT/match-...):
    --resume, arena reproduce, arena report.

    Example: arena match caterpillar heuristic greedy --sprt 0,10 --max-deals 1000
    """
    from arena.config import parse_config
    from arena.tournament.stopping import match_config

    with user_errors():
        try:
            numbers = [float(x) for x in sprt.split(",")]
        except ValueError:
            numbers = []
        if len(numbers) not in (2, 4):
            fail(f"--sprt takes elo0,elo1 or elo0,elo1,alpha,beta, not {sprt!r}")
        text = match_config(game, first, second, sprt=numbers, max_deals=max_deals, rules=parse_rule_args(rule or []),
                            players=players, field=field, seed=seed, model=SprtModel(sprt_model).value)
        settings = parse_config(text)
    run_config(settings, workers=workers, address=address, resume=resume, overwrite=overwrite, out=out,
               progress=progress)


class Method(StrEnum):
    """Rating methods of `arena ratings`."""

    batch = "batch"
    online = "online"


@app.command()
def ratings(
    run: Annotated[Path, typer.Argument(help="Run directory, e.g. reports/quickstart.")],
    game: Annotated[str | None, typer.Option(help="Only this game (or variant label).")] = None,
    format: Annotated[Format, typer.Option(help="Output format.")] = Format.table,
    method: Annotated[Method | None, typer.Option(
        help="batch: order-free TrueSkill given all games; online: the package's update in game order. "
             "Default: the method in the config's ratings table.")] = None,
    pairs: Annotated[bool, typer.Option("--pairs", help="Also each pairing (and two players' deal pairs).")] = False,
    seats: Annotated[bool, typer.Option("--seats", help="Also the seat advantage.")] = False,
    neighbours: Annotated[bool, typer.Option("--neighbours", help="Also the score by the bot seated before.")] = False,
    all_tables: Annotated[bool, typer.Option("--all", help="Every table, and every column of the headline.")] = False,
) -> None:
    """Rate a run from its result parts and show a headline table per variant: tier, rating, games, results.

    --pairs, --seats, --neighbours and --all add the other tables (csv and json hold everything).
    Parts that were moved, merged or reordered are simply re-rated (ratings.csv is only a cache).
    Example: arena ratings reports/quickstart --game caterpillar --pairs --format markdown
    """
    from arena.cli.tables import SECTIONS, format_tables
    from arena.ratings.tables import rate_run
    from arena.ratings.variants import select

    shown = SECTIONS if all_tables else [s for s, on in zip(SECTIONS, (pairs, seats, neighbours), strict=True) if on]
    with user_errors():
        rated = select(rate_run(open_run(run), None if method is None else method.value), game)
        typer.echo(format_tables(rated, format.value, shown))
        if format is Format.table and not all_tables:
            typer.echo("more: --pairs, --seats, --neighbours or --all")


@app.command()
def reproduce(
    run: Annotated[Path, typer.Argument(help="Run directory to reproduce.")],
    workers: Annotated[int | None, typer.Option(help="Worker processes for the re-run.")] = None,
    from_source: Annotated[bool, typer.Option(
        "--from-source", help="Play the bots' sources as the config names them (not the run's copies of their code); "
        "exit 1 naming each whose code changed since the run.")] = False,
) -> None:
    """Re-run a run's saved config; exit 0 only when the run's result parts, its manifest's digest and the
    re-run's results all agree. The bots play from the copies of their code that the run folder holds, so a run
    folder copied to another machine reproduces there; a line says of each bot whose source has changed since.

    Example: arena reproduce reports/quickstart --workers 2
    """
    import shutil
    import tempfile

    from arena.cli.display import progress_bar
    from arena.config.saved import changed_code, frozen_config, saved_config
    from arena.results import RunDir, run_digest
    from arena.tournament.runner import play_missing
    from arena.tournament.summary import timing_decided
    from arena.web.formats import counted

    with user_errors():
        run_dir = open_run(run)
        if not run_dir.manifest.is_file():
            fail(f"{run}: the run has not finished (no manifest.json); finish it with --resume first")
        manifest = run_dir.read_manifest()
        expected = manifest["digest"]
        on_disk = run_digest(run_dir)
        if on_disk != expected:  # the parts were changed since the run finished: nothing to re-run against
            typer.echo(f"expected {expected}\non disk  {on_disk}")
            typer.echo("MISMATCH: the run's result parts are not those its manifest records", err=True)
            raise typer.Exit(1)
        if from_source:
            config = saved_config(run_dir)
            if changed := changed_code(config, manifest):  # no re-run: the code is not what the run played
                for bot in changed:
                    typer.echo(f"MISMATCH: {bot}", err=True)
                raise typer.Exit(1)
        else:
            config, notes = frozen_config(run_dir)
            for note in notes:
                typer.echo(note, err=True)
        with tempfile.TemporaryDirectory(prefix="arena-reproduce-") as scratch:
            again = RunDir(Path(scratch) / config.name)
            if (run_dir.path / "llm").is_dir():  # model seats answer from the run's store: no network, no key
                shutil.copytree(run_dir.path / "llm", again.path / "llm")
            with progress_bar(sys.stderr.isatty()) as on_progress:
                play_missing(config, again, workers=workers, on_progress=on_progress)
            found = run_digest(again)
            differ, timed = timing_decided(run_dir, again) if found != expected else (0, 0)
    typer.echo(f"expected {expected}\nfound    {found}")
    if found != expected:
        if timed and timed == differ:
            typer.echo(f"MISMATCH: the re-run differs in {counted(differ, 'game')}, each decided by timing: a bot's "
                       "stall or its suspension after stalls, placed by when several workers played "
                       "(docs/time-limits.md); re-run with --workers 1 to reproduce a run with a bot that stalls",
                       err=True)
        else:
            typer.echo("MISMATCH: the re-run gave other results", err=True)
        raise typer.Exit(1)
    typer.echo("reproduced: identical results")


@app.command()
def replay(
    run: Annotated[Path, typer.Argument(help="Run directory.")],
    index: Annotated[int, typer.Argument(help="Game index (column game_index of the results).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the transcript JSON.")] = False,
    html_file: Annotated[Path | None, typer.Option(
        "--html", metavar="FILE", help="Write a self-contained replay page to FILE instead of printing.")] = None,
) -> None:
    """Regenerate one game of a run from its seeds and print it move by move (or as JSON, or as a page).

    Example: arena replay reports/quickstart 12 --html game12.html
    """
    from arena.tournament.replay import replay_game

    with user_errors():
        data = replay_game(open_run(run), index)
    if html_file is not None:
        from arena.report.replay_page import write_replay_page

        typer.echo(f"wrote {write_replay_page(data, html_file)}")
    elif as_json:
        typer.echo(json.dumps(data))
    else:
        from arena.tournament import referee

        typer.echo("\n".join(referee.account(data)))


@app.command()
def submit(
    spec: Annotated[str, typer.Argument(help="The bot: path/to/file.py:Class, a folder or zip with a bot.toml, "
                                        "folder-or.zip:module:Class, \"command: PROGRAM ARGS\", or module:Class.")],
    move_time_limit: Annotated[float, typer.Option(help="Seconds of its CPU time per move.", min=0.001)] = 1.0,
    setup_time_limit: Annotated[float, typer.Option(
        help="Seconds of its CPU time to load and build the bot, and for each reset.", min=0.001)] = 10.0,
    games: Annotated[int, typer.Option(help="Validation games per game and rules variant.", min=1)] = 6,
    sandbox: Annotated[bool, typer.Option(
        help="Check the bot inside the sandbox (docs/sandbox.md); --no-sandbox: in a plain process.")] = True,
    replace: Annotated[bool, typer.Option(help="Give a name registered before to this bot.")] = False,
    wall_backstop: Annotated[float, typer.Option(help=WALL_BACKSTOP_HELP, min=1)] = 10.0,
) -> None:
    """Check a bot against `random` in every game it claims, then make it available by name.

    The bot runs in its own process, never in arena's, inside the sandbox unless --no-sandbox: every call
    into it is timed (setup and moves), so the checks end within these limits whatever it does.
    Example: arena submit docs/example_bot.py:CountingBot
    """
    from arena.isolation.clock import setup_wall
    from arena.tournament.submit import submit as submit_bot
    from arena.web.formats import counted

    where = "the sandbox" if sandbox else "its own process"
    typer.echo(f"checking {spec} in {where}: setup_time_limit {setup_time_limit:g}s, "
               f"move_time_limit {move_time_limit:g}s (of the bot's CPU time; a call ends after "
               f"{wall_backstop:g} times its limit in wall time, a setup call after "
               f"{setup_wall(setup_time_limit, wall_backstop):g}s; the checks stop at the first such stall)")
    with user_errors():
        report = submit_bot(spec, replace=replace, games_per_rules=games, move_time_limit=move_time_limit,
                            setup_time_limit=setup_time_limit, sandboxed=sandbox, wall_backstop=wall_backstop)
    if report.stalled:  # the checks stopped there: one line
        typer.echo(f"error: {report.name!r} was not registered: {report.problems[0]}", err=True)
        raise typer.Exit(2)
    typer.echo(f"bot {report.name!r} ({report.spec})")
    if report.built is None:
        typer.echo(f"  {'setup':<13} {'FAILED':<7} not built within {setup_time_limit:g}s")
    else:
        typer.echo(f"  {'setup':<13} {'ok':<7} started and built in {report.built:.2f}s")
    for check in report.checks:
        if check.problems:
            typer.echo(f"  {check.game:<13} FAILED  after {counted(check.games, 'game')}")
        else:
            typer.echo(f"  {check.game:<13} {'ok':<7} {counted(check.games, 'game')}, {check.wins} won against "
                       f"random, slowest {1000 * check.slowest:.2f} ms/move, slowest move "
                       f"{check.slowest_move[0]:.3f}s of CPU time and {check.slowest_move[1]:.3f}s of wall time")
    if not report.ok:
        for problem in report.problems:
            typer.echo(f"  problem: {problem}", err=True)
        typer.echo(f"error: {report.name!r} was not registered", err=True)
        raise typer.Exit(2)
    if report.unchanged:
        pin = f"sha256 {report.source.sha256[:12]}" if report.source.sha256 else "arena's own"
        typer.echo(f"unchanged: {report.name!r} can be named already, with this very code ({pin})")
        return
    typer.echo(f"registered: {report.name!r} can now be named in every command (arena play, match, configs, "
               "league add)")


@app.command()
def report(run: Annotated[Path, typer.Argument(help="Run directory, e.g. reports/quickstart.")]) -> None:
    """Write the run's HTML report (RUN/report.html, with plotly.js beside it) and print its path.

    Example: arena report reports/quickstart
    """
    from arena.report import write_report

    with user_errors():
        path = write_report(open_run(run))
    typer.echo(f"wrote {path}")


app.add_typer(league_app, name="league")


def main() -> None:
    """Entry point for `python -m arena.cli`."""
    sys.exit(app())

