"""Planners and the one loop (docs/architecture.md): the runner plays exactly the steps a planner asks for,
hands back each step's results only once the whole step is played, and a planner's decisions depend on
those results alone."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from arena.config import parse_config
from arena.results import RATED_COLUMNS, RunDir, load_results
from arena.tournament.plan import FixedPlan, SettledPlan, SprtPlan, Step, plan_for
from arena.tournament.runner import LocalWorker, _joined, execute
from arena.tournament.schedule import Schedule

CONFIG = """
name = "plan"
seed = 11

[[games]]
game = "caterpillar"
deals = 6

[[bots]]
name = "random"

[[bots]]
name = "greedy"

[[bots]]
name = "heuristic"

[run]
batch_size = 4
"""


class DealByDeal:
    """A planner of its own: deal 0 of every table, then one more deal of the table whose first bot won least
    so far, three steps in all. It records what it was handed, to check the loop's side of the bargain."""

    reads_results = True

    def __init__(self, config) -> None:
        self.config, self.schedule = config, Schedule(config)
        self.block = self.schedule.blocks[0]
        self.handed: list[int | None] = []
        self.asked: list[list[tuple[int, int]]] = []
        self.deals = [0] * len(self.block.tables)

    def next(self, new: pa.Table | None) -> Step | None:
        self.handed.append(None if new is None else new.num_rows)
        if len(self.asked) == 3:
            return None
        if not self.asked:
            ranges = self.block.deal_ranges(0, 1)
            self.deals = [1] * len(self.deals)
        else:
            firsts = [row[0] for row in new.column("ranks").to_pylist()]
            table = min(range(len(self.deals)), key=lambda t: (sum(firsts), t))  # a decision that reads the results
            start = self.block.start + (table * self.block.deals + self.deals[table]) * self.block.rotations
            ranges = [(start, start + self.block.rotations)]
            self.deals[table] += 1
        self.asked.append(ranges)
        return Step(self.config, ranges, sized=True)

    def most_games(self) -> int:
        return self.schedule.total

    def note(self) -> str:
        return ""

    def played(self):
        return [r for step in self.asked for r in step]

    def summary(self):
        return None


def test_the_runner_plays_exactly_the_steps_asked_and_hands_back_each_steps_results_whole(tmp_path):
    config = parse_config(CONFIG)
    run = RunDir(tmp_path / "r")
    run.results.mkdir(parents=True)
    saved = []
    planner = DealByDeal(config)

    def save(step, batch, columns):
        from arena.results import write_part

        assert step.ranges == planner.asked[-1]  # saved while its own step is played, not a later one
        saved.append(batch)
        write_part(run, *batch, columns)

    played = execute(planner, LocalWorker(), done=lambda _: [], save=save, batch_size=config.run.batch_size)
    games_per_step = [sum(end - start for start, end in step) for step in planner.asked]
    assert games_per_step == [6, 2, 2]  # three tables of 2 rotations, then one deal of one table
    assert planner.handed == [None, *games_per_step]  # each step's games handed back whole, after the step
    assert played == sum(games_per_step) == sum(end - start for start, end in saved)
    assert sorted(saved) == sorted(r for step in planner.asked for r in step)


def test_the_fixed_plan_is_one_step_of_the_whole_schedule():
    config = parse_config(CONFIG)
    plan = plan_for(config)
    assert isinstance(plan, FixedPlan) and not plan.reads_results
    total = Schedule(config).total
    assert plan.next(None) == Step(config, [(0, total)]) and plan.next(None) is None
    assert plan.played() == [(0, total)] and plan.summary() is None


def test_a_stopping_rule_decides_the_same_however_its_results_were_batched(tmp_path):
    """The settled rule, handed the same games in one table or a game at a time in the order batches might
    finish, asks for the same steps and stops at the same deal."""
    config = parse_config(CONFIG.replace('batch_size = 4', 'until = "settled"\nround_deals = 2\ntie_margin = 3.0'))
    assert isinstance(plan_for(config), SettledPlan)
    assert isinstance(plan_for(parse_config(CONFIG + 'until = "sprt"\nsprt = { bots = ["greedy", "random"] }\n'
                                            .replace("deals = 6", "deals = 6\nbots = ['greedy', 'random']"))),
                      SprtPlan)
    from arena.tournament.runner import play_missing

    report = play_missing(config, RunDir(tmp_path / "r"), workers=1)
    results = load_results(RunDir(tmp_path / "r"), RATED_COLUMNS)

    def replay(chunks) -> list:
        plan, steps, new = plan_for(config), [], None
        while step := plan.next(new):
            steps.append(step.ranges)
            index = results["game_index"]
            wanted = pa.concat_tables([results.filter(pc.and_(pc.greater_equal(index, start), pc.less(index, end)))
                                       for start, end in step.ranges])
            rows = list(range(wanted.num_rows))
            new = pa.concat_tables([wanted.take(rows[i::chunks]) for i in range(chunks)]) if chunks > 1 else wanted
        return steps, plan.summary()

    whole, interleaved = replay(1), replay(3)
    assert whole == interleaved
    assert whole[1] == report.stop and _joined(r for step in whole[0] for r in step) == _joined(report.played)
