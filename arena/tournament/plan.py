"""Planners: what to play next, given the results so far. The runner only plays what a planner asks.

A planner is asked for a step between rounds, never during one: `next(new)` takes the results of the
games of the step just played (at the start, those a resumed run already holds) and returns the next
step, a config and game-index ranges of its schedule, or None when the run is over. Steps always end
at deal boundaries, and a planner reads nothing but the results it is given, so its decisions depend
on the results alone, never on the workers, the batch size or the order in which batches finish.

- `FixedPlan`: every game of the schedule, in one step (`until = "all"`).
- `SprtPlan`: a match, round by round until the sequential test decides (`until = "sprt"`).
- `SettledPlan`: every table of each variant round by round, until its rating table is settled
  (`until = "settled"`).

The league's matchmaker (arena/league/) is a planner too: each of its steps is a config of its own.
The statistics behind the rules live in arena/tournament/stopping.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import pyarrow as pa
import pyarrow.compute as pc

from arena.config import Config
from arena.results import RATED_COLUMNS, SCHEMA
from arena.tournament.schedule import Block, Schedule

if TYPE_CHECKING:
    from arena.tournament.stopping import MatchStats

Range = tuple[int, int]
"""A contiguous range of game indices, start inclusive, end exclusive."""


@dataclass(frozen=True)
class Step:
    """What to play next: game-index ranges of `config`'s schedule, each a run of whole deals."""

    config: Config
    ranges: list[Range]
    sized: bool = False
    """True when a planner looks after the step: the runner then cuts it into short batches, so that no worker
    idles long at the end of the round (how it cuts never changes the results)."""


class Planner(Protocol):
    reads_results: bool
    """Whether `next` reads the results (the runner then keeps a step's results to hand them over)."""

    def next(self, new: pa.Table | None) -> Step | None:
        """The next step, given the results (arena.results.RATED_COLUMNS) of the last step's games, or at
        the start of those already saved; None when there is nothing more to play."""

    def most_games(self) -> int:
        """Games played so far plus those the run may still play (for the progress bar)."""

    def note(self) -> str:
        """A line on where the run stands (for the progress bar), or ""."""

    def played(self) -> list[Range]:
        """The game-index ranges of the run so far."""

    def summary(self) -> dict | None:
        """The planner's account of the run for the manifest (`stop`), None for a fixed schedule."""


class FixedPlan:
    """`until = "all"`: the whole schedule in one step."""

    reads_results = False

    def __init__(self, config: Config, schedule: Schedule) -> None:
        self.config, self.total, self.asked = config, schedule.total, False

    def next(self, new: pa.Table | None) -> Step | None:
        if self.asked:
            return None
        self.asked = True
        return Step(self.config, [(0, self.total)])

    def most_games(self) -> int:
        return self.total

    def note(self) -> str:
        return ""

    def played(self) -> list[Range]:
        return [(0, self.total)]

    def summary(self) -> dict | None:
        return None


class _RoundPlan:
    """A stopping rule: every config entry not yet stopped plays `round_deals` more deals a round, and after
    each round the rule looks at each entry's results and stops those whose question is answered."""

    reads_results = True

    def __init__(self, config: Config, schedule: Schedule) -> None:
        self.config, self.schedule, self.run = config, schedule, config.run
        self.deals = [0] * len(schedule.blocks)
        """Deals of each entry that the rule has looked at."""
        self.verdicts: dict[str, dict] = {}
        """Each stopped variant's label: why it stopped, after how many deals."""
        self._results = SCHEMA.empty_table().select(RATED_COLUMNS)
        self._asked = False

    def next(self, new: pa.Table | None) -> Step | None:
        if new is not None and new.num_rows:
            self._results = pa.concat_tables([self._results, new.select(RATED_COLUMNS)])
        if self._asked:
            self._look()
        ranges = [r for number, block in enumerate(self.schedule.blocks) if block.label not in self.verdicts
                  for r in block.deal_ranges(self.deals[number], self.deals[number] + self.run.round_deals)]
        self._asked = bool(ranges)
        return Step(self.config, ranges, sized=True) if ranges else None

    def _look(self) -> None:
        """Takes the round just played into account and stops the entries whose question is answered."""
        for number, block in enumerate(self.schedule.blocks):
            if block.label in self.verdicts:
                continue
            deals = self.deals[number] = min(block.deals, self.deals[number] + self.run.round_deals)
            verdict, still_open = self.decide(block, self._variant_results(block.label, deals))
            if verdict is None and deals == block.deals:
                verdict = self.out_of_deals
            if verdict is not None:
                self.verdicts[block.label] = {"verdict": verdict, "deals": deals, "max_deals": block.deals,
                                              **({"unsettled": still_open} if still_open else {})}

    out_of_deals = "max_deals"
    """The verdict on an entry that played all its deals undecided."""

    def decide(self, block: Block, results: pa.Table) -> tuple[str | None, list[str]]:
        """The verdict on an entry from the results of its deals so far (None: play on), and what is still open."""
        raise NotImplementedError

    def _variant_results(self, label: str, deals: int) -> pa.Table:
        """The results of a variant's first `deals` deals (a resumed run may hold more of a round cut short)."""
        table = self._results
        return table.filter(pc.and_(pc.equal(table["variant"], label), pc.less(table["deal"], deals)))

    def played(self) -> list[Range]:
        return [r for number, block in enumerate(self.schedule.blocks)
                for r in block.deal_ranges(0, self.deals[number])]

    def most_games(self) -> int:
        return sum(block.count if block.label not in self.verdicts else
                   len(block.tables) * self.deals[number] * block.rotations
                   for number, block in enumerate(self.schedule.blocks))

    def note(self) -> str:
        return ""

    def summary(self) -> dict | None:
        return {"until": self.run.until, "round_deals": self.run.round_deals, "variants": self.verdicts}


class SprtPlan(_RoundPlan):
    """`until = "sprt"`: a match of two bots, until the sequential probability ratio test decides."""

    out_of_deals = "undecided"

    def __init__(self, config: Config, schedule: Schedule) -> None:
        super().__init__(config, schedule)
        self.match: MatchStats | None = None

    def decide(self, block: Block, results: pa.Table) -> tuple[str | None, list[str]]:
        from arena.tournament.stopping import match_stats

        self.match = match_stats(results, self.run.sprt)
        return (None if self.match.verdict == "undecided" else self.match.verdict), []

    def note(self) -> str:
        return self.match.line() if self.match else ""

    def summary(self) -> dict | None:
        return {**super().summary(), **({"match": self.match.as_dict()} if self.match else {})}


class SettledPlan(_RoundPlan):
    """`until = "settled"`: each variant until every adjacent pair of its rating table is separated or a tie."""

    def decide(self, block: Block, results: pa.Table) -> tuple[str | None, list[str]]:
        from arena.ratings.tables import rate_results  # here, not at the top: a run starts playing without them
        from arena.results import results_frame
        from arena.tournament.stopping import settled_pairs

        rated = rate_results(results_frame(results), self.config.ratings)[block.label]
        looks = -(-block.deals // self.run.round_deals)
        still_open = settled_pairs(rated, looks, self.run.confidence, self.run.tie_margin)
        return (None if still_open else "settled"), still_open


PLANS = {"all": FixedPlan, "sprt": SprtPlan, "settled": SettledPlan}


def plan_for(config: Config, schedule: Schedule | None = None) -> Planner:
    """The planner of a tournament config, by its stopping rule (`[run] until`)."""
    return PLANS[config.run.until](config, schedule or Schedule(config))
