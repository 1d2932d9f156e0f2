"""Tournament configs: valid ones load, bad ones get one line naming the field."""

import pytest

from arena.config import ConfigError, parse_config
from arena.league.settings import parse_settings

GOOD = """
name = "t"
seed = 7
[[games]]
game = "caterpillar"
deals = 3
[[games]]
game = "go_for_it"
deals = 2
rules = { players = 3, jokers = true }
[[bots]]
name = "random"
[[bots]]
name = "greedy"
[[bots]]
name = "other"
path = "random"
[run]
workers = 1
batch_size = 5
[ratings]
draw_probability = 0.2
"""


def test_a_good_config_loads():
    config = parse_config(GOOD)
    assert [g.label for g in config.games] == ["caterpillar", "go_for_it:jokers=true,players=3"]
    assert [b.name for b in config.bots] == ["random", "greedy", "other"]
    assert config.bots[2].spec.endswith("random_bot.py:RandomBot")
    assert config.run.workers == 1 and config.run.batch_size == 5 and config.ratings.draw_probability == 0.2
    assert config.ratings.beta == pytest.approx(25 / 6)


def edit(old, new):
    assert old in GOOD
    return GOOD.replace(old, new, 1)


@pytest.mark.parametrize("text, message", [
    ("name = ", "malformed TOML"),
    (edit('game = "caterpillar"', 'game = "chess"'), "games[0].game: unknown game chess"),
    (edit("deals = 3", "deals = 0"), "games[0].deals: must be a positive integer, not 0"),
    (edit("deals = 3", "deals = -4"), "games[0].deals: must be a positive integer"),
    (edit("deals = 3", 'deals = "many"'), "games[0].deals: must be a positive integer"),
    (edit("players = 3", "players = 9"), "games[1].rules: rule 'players' must be between 2 and 6"),
    (edit("jokers = true", "jokes = true"), "games[1].rules: unknown rule 'jokes'"),
    (edit('name = "greedy"', 'name = "nobody"'), "bots[1].name: unknown bot 'nobody'"),
    (edit('name = "greedy"', 'name = "random"'), "bots[1].name: 'random' appears twice"),
    (edit('path = "random"', 'path = "nowhere.py:Bot"'), "bots[2].path: no bot file"),
    (edit('name = "greedy"', 'name = "greedy"\nparams = { depth = 2 }'), "bots[1].params"),
    (edit("seed = 7", "seed = -1"), "seed: must be a non-negative integer"),
    (edit("seed = 7\n", ""), "seed: missing"),
    (edit("batch_size = 5", "batch_size = 0"), "run.batch_size: must be a positive integer"),
    (edit("workers = 1", "wrokers = 1"), "run.wrokers: unknown field"),
    (edit("draw_probability = 0.2", "draw_probability = 1.5"), "ratings.draw_probability"),
    (edit("players = 3, jokers = true", "players = 4"), "go_for_it needs 4 players per table, but only 3"),
    (edit('game = "go_for_it"', 'game = "go_for_it"\nbots = ["random", "x"]'), "games[1].bots: no bot named 'x'"),
    (edit("deals = 3", 'deals = 3\n[[games]]\ngame = "caterpillar"\ndeals = 1'), "caterpillar is listed twice"),
    (edit("deals = 3", 'deals = 3\nbots = ["random", "greedy"]\n[[games]]\ngame = "caterpillar"\ndeals = 1\n'
                       'bots = ["greedy", "other", "random"]'),
     "games[1]: caterpillar plays the table greedy, random again (games[0] has it)"),
])
def test_bad_configs_name_the_field(text, message):
    with pytest.raises(ConfigError) as error:
        parse_config(text)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_variant_listed_again_may_play_other_tables():
    """As a league's round does: one entry a table, the same variant."""
    config = parse_config(edit("deals = 3", 'deals = 3\nbots = ["random", "greedy"]\n[[games]]\ngame = "caterpillar"\n'
                                            'deals = 1\nbots = ["greedy", "other"]'))
    assert [g.label for g in config.games] == ["caterpillar", "caterpillar", "go_for_it:jokers=true,players=3"]


def test_a_bot_that_cannot_play_a_listed_game(tmp_path):
    bot = tmp_path / "cat_only.py"
    bot.write_text("from arena.bots import Bot\n\nclass CatOnly(Bot):\n    name = 'cat-only'\n"
                   "    games = {'caterpillar'}\n\n    def act(self, o):\n        return o.legal_moves[0]\n")
    text = edit('path = "random"', f'path = "{bot}:CatOnly"')
    with pytest.raises(ConfigError, match=r"games\[1\].game: bot 'other' cannot play go_for_it"):
        parse_config(text)
    fixed = text.replace('game = "go_for_it"', 'game = "go_for_it"\nbots = ["random", "greedy", "random"]')
    with pytest.raises(ConfigError):  # listing a bot twice is no way round it either
        parse_config(fixed.replace("players = 3", "players = 4"))
    config = parse_config(text.replace('game = "go_for_it"', 'game = "go_for_it"\nbots = ["random", "greedy"]')
                          .replace("players = 3, jokers = true", "players = 2"))
    assert config.games[1].bots == ("random", "greedy")


def test_a_leagues_defaults_are_a_tournaments():
    league = parse_settings('name = "club"\nseed = 7\n[[games]]\ngame = "caterpillar"\n')
    tournament = parse_config('name = "t"\nseed = 7\n[[games]]\ngame = "caterpillar"\ndeals = 1\n'
                              '[[bots]]\nname = "random"\n[[bots]]\nname = "greedy"\n')
    assert league.run == tournament.run and league.ratings == tournament.ratings
    assert (league.confidence, league.tie_margin) == (tournament.run.confidence, tournament.run.tie_margin)




@pytest.mark.parametrize("value, shown", [("0.5", "0.5"), ("0", "0"), ('"ten"', "'ten'"), ("nan", "nan")])
def test_wall_backstop_is_checked(value, shown):
    """`[run] wall_backstop`: how many times its limit a call into a bot may last in wall time, a number of at least
    1 (10 by default)."""
    assert parse_config(GOOD).run.wall_backstop == 10
    assert parse_config(edit("workers = 1", "workers = 1\nwall_backstop = 1")).run.wall_backstop == 1
    with pytest.raises(ConfigError) as error:
        parse_config(edit("workers = 1", f"workers = 1\nwall_backstop = {value}"))
    assert str(error.value) == f"run.wall_backstop: must be a number >= 1, not {shown}"
