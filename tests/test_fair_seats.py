"""Fair seats at multi-player tables: the order of `[[bots]]` in a config picks no winner.

Real tournaments of Go For It (where the player after a weak one profits) with identical copies of the
bundled bots, each config played as written and with its bots in reverse order (docs: schedule.py)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.config import parse_config
from arena.ratings.bootstrap import SEPARATED
from arena.ratings.deals import Z95
from arena.ratings.tables import rate_run
from arena.results import RunDir
from arena.tournament.runner import play_missing

FIELD = ["random", "greedy", "heuristic", "random", "greedy", "heuristic", "random"]
"""The bots of a table of n players: the first n + 1 of these (so n + 1 tables), copies renamed NAME-2, NAME-3."""
GAMES = 1200
LEVEL = 3.29
"""|z| that two identical bots exceed by chance one time in a thousand."""
"""About this many games a tournament: deals per table = GAMES / (tables x rotations)."""


def field_of(players: int) -> list[tuple[str, str]]:
    """(name, bundled bot) of each entrant."""
    seen: dict[str, int] = {}
    entrants = []
    for bot in FIELD[:players + 1]:
        seen[bot] = seen.get(bot, 0) + 1
        entrants.append((bot if seen[bot] == 1 else f"{bot}-{seen[bot]}", bot))
    return entrants


def config_text(players: int, entrants: list[tuple[str, str]]) -> str:
    deals = GAMES // ((players + 1) * players)
    bots = "".join(f'[[bots]]\nname = "{name}"\npath = "{bot}"\n' for name, bot in entrants)
    return (f'name = "fair"\nseed = 4\n[[games]]\ngame = "go_for_it"\ndeals = {deals}\n'
            f'rules = {{ players = {players} }}\n{bots}[run]\nworkers = 1\n')


def table_of(players: int, entrants: list[tuple[str, str]], directory) -> tuple:
    """The rating table of a tournament, and each ordered pair's LOS and z (mu difference over its standard error)."""
    config = parse_config(config_text(players, entrants))
    run = RunDir(directory)
    play_missing(config, run, workers=1)
    (rated,) = rate_run(run).values()
    pairs = rated.pairs.set_index(["bot", "opponent"])
    z = pairs["mu_diff"] / ((pairs["mu_diff_hi"] - pairs["mu_diff_lo"]) / (2 * Z95))
    return rated.table.set_index("bot"), pairs["los"], z


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 6])
@settings(max_examples=1, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_copies_are_level_and_reversing_the_config_keeps_every_separated_order(players, data, tmp_path_factory):
    """Identical copies of a bot are level: their difference is within what chance gives. At 95%, as tiers are
    drawn, chance alone splits a pair of copies one run in twenty, so copies are held to 99.9% (|z| < 3.29);
    with the config's order as seating, this test failed at four players (the copies of greedy 4.8 standard errors
    apart, and heuristic above greedy-2 in one order, below it in the other). Between bots that differ, whatever
    either table separates at 95% (LOS >= 0.975), the other orders the same way."""
    entrants = data.draw(st.permutations(field_of(players)), label="config order")
    kind = dict(entrants)
    forward = table_of(players, entrants, tmp_path_factory.mktemp("forward") / "fair")
    reverse = table_of(players, entrants[::-1], tmp_path_factory.mktemp("reverse") / "fair")
    for (table, _, z), order in ((forward, "as written"), (reverse, "reversed")):
        for (a, b), level in z.items():
            if kind[a] == kind[b]:
                assert abs(level) < LEVEL, (order, a, b, level, table[["rank", "mu"]])
    for (table, los, _), (other, _, _) in ((forward, reverse), (reverse, forward)):
        for (a, b), chance in los.items():
            if kind[a] != kind[b] and chance >= SEPARATED:  # a above b: the other table must rank a above b too
                assert other.loc[a, "mu"] > other.loc[b, "mu"], (a, b, table[["rank", "mu"]], other[["rank", "mu"]])
