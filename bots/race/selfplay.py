"""How rows end when the heuristic plays itself at Go For It, and the values of pile sizes built from it.

A row's outcome, seen from one seat (its subject: the seat that starts the row, or that plays or passes
at some point of it), is what happens from then to the row's end: how many cards each seat turns up (by
seat, the subject first, then in turn), whether the row is won or taken up, and by which seat. Rows that
end the game are left out: in the tables the piles' sizes decide when a seat turns up its last card.

With two players the values are the starter's chance to win from the two piles' sizes (its own first),
found by value iteration over the rows' outcomes; the seat that turns up its last card wins as often as
it did in the games played. With four, the chance that one seat ends above another, from the two seats'
difference of their scores (cards won less cards in the pile) and of their piles' sizes, and whether the next
row is started by the first of them, the second or another seat, as counted at every row's start of the games
played (smoothed, below): four-player games are short, so the cards already won weigh as much as the piles.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from arena.bots import load_spec
from arena.games.go_for_it import rules as game

HEURISTIC = sys.modules[load_spec(f"{Path(__file__).parent.parent / 'heuristic.py'}:HeuristicBot").__module__]
STRATEGY = HEURISTIC.STRATEGIES["go_for_it"]

SIZE = 53
"""Pile sizes 0 to 52 index the tables."""
BLOCK = 100
"""Games are played in blocks of this many, each block's deals from the seed and its number alone."""
WIN, TAKE = "win", "take"
SPAN = 26
"""Four players: differences of scores and of piles' sizes beyond this are counted as this."""
SMOOTH = 20
"""Four players: a cell's count of games weighs against this many of the prior (the same role and the
same difference of pile sizes)."""


def deal_seeds(seed: int, block: int) -> range:
    """The deals of block `block` of the build with seed `seed`."""
    first = seed * 10_000_000 + block * BLOCK
    return range(first, first + BLOCK)


def played(state) -> list[int]:
    """Per seat, the cards it has turned up so far: its pile as dealt, plus what was put under it, less what
    is left (`added` only grows)."""
    dealt = len(state.layout[0][0])
    return [dealt + a - len(p) for a, p in zip(state.added, state.piles, strict=True)]


def record(players: int, seeds) -> dict:
    """The rows' outcomes (by key: `start`, `play L` and `pass L`, L the row's length) and the games' ends,
    counted over heuristic self-play of the deals `seeds`."""
    rules = game.Rules(players=players)
    rows: dict[str, Counter] = {}
    ends = Counter()  # two players: "won"/"lost"/"tied" of the seat that turned up its last card
    pairs = Counter()  # four players: (role, score difference, pile difference) -> (twice the score, count)
    for deal in seeds:
        state = game.new_state(rules, deal)
        rng = random.Random(deal)
        before = played(state)
        before[state.last] -= 2
        open_rows = [("start", state.last, before)]
        game_starts = [(tuple(len(p) + 2 * (s == state.last) for s, p in enumerate(state.piles)), state.last,
                        (0,) * players)]
        while (seat := game.to_move(state)) is not None:
            move = STRATEGY.move(game.observe(state, seat), STRATEGY.DEFAULTS, rng)
            size, kept = len(state.row), list(state.row)
            if move == "play" or (move == "pass" and state.passes == 0):
                open_rows.append((f"{move} {size}", seat, played(state)))
            game.apply(state, move)
            if state.turn is None:
                break
            if move == "play" and len(state.row) == size + 1 and state.row[:size] == kept:
                continue  # the row goes on
            if move == "pass":
                continue
            # The row ended in this move: won (a claim or a seventh card) or taken up (a take or a pair inside
            # the row); the next row's two cards are already turned up by its starter.
            ended_by = seat
            kind = WIN if move == "claim" or (move == "play" and size + 1 == 7) else TAKE
            now = played(state)
            starter = state.last
            now[starter] -= 2
            for key, subject, then in open_rows:
                turned = tuple(now[(subject + i) % players] - then[(subject + i) % players] for i in range(players))
                rows.setdefault(key, Counter())[(*turned, kind, (ended_by - subject) % players)] += 1
            open_rows = [("start", starter, now)]
            game_starts.append((tuple(len(p) + 2 * (s == starter) for s, p in enumerate(state.piles)), starter,
                                tuple(map(len, state.winnings))))
        final = game.scores(state)
        if players == 2 and state.termination == "normal":
            ender = 0 if not state.piles[0] else 1
            mine, theirs = final[ender], final[1 - ender]
            ends["won" if mine > theirs else "tied" if mine == theirs else "lost"] += 1
        if players > 2:
            for piles, starter, won in game_starts:
                for i, a in enumerate(piles):
                    for j, b in enumerate(piles):
                        if i != j:
                            role = 0 if starter == i else 1 if starter == j else 2
                            cell = (role, pair_index(won[i] - a - won[j] + b), pair_index(a - b))
                            pairs[cell, "score"] += 2 if final[i] > final[j] else 1 if final[i] == final[j] else 0
                            pairs[cell, "count"] += 1
    return {"rows": rows, "ends": ends, "pairs": pairs}


def merged(records: list[dict]) -> dict:
    """Several records as one."""
    rows: dict[str, Counter] = {}
    ends, pairs = Counter(), Counter()
    for got in records:
        for key, counts in got["rows"].items():
            rows.setdefault(key, Counter()).update(counts)
        ends.update(got["ends"])
        pairs.update(got["pairs"])
    return {"rows": rows, "ends": ends, "pairs": pairs}


def counts_json(got: dict) -> dict:
    """What a record counted, as JSON in a fixed order: the rows' outcomes by key (`[turned..., kind, seat,
    count]`), the two-player ends, and the four-player pairs (`[role, d, e, twice the score, count]`)."""
    cells = sorted({cell for cell, _ in got["pairs"]})
    return {"rows": {key: [[*outcome, count] for outcome, count in sorted(got["rows"][key].items())]
                     for key in sorted(got["rows"])},
            "ends": dict(sorted(got["ends"].items())),
            "pairs": [[*cell, got["pairs"][cell, "score"], got["pairs"][cell, "count"]] for cell in cells]}


def digest(data) -> str:
    """A short digest of JSON-able data."""
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def ender_wins(ends: dict) -> float:
    """Two players: the share of games won by the seat that turned up its last card (a tie half)."""
    total = sum(ends.values())
    return (ends.get("won", 0) + 0.5 * ends.get("tied", 0)) / total


def walk(outcome, piles: tuple[np.ndarray, ...]):
    """For a row's outcome seen by its subject, with the seats' piles (the subject's first) before it: the
    piles after it, whether a seat turns up its last card in it (then which: the one left the fewest cards,
    the subject on a tie), and the next row's starter (relative to the subject)."""
    *turned, kind, seat = outcome
    n = len(turned)
    left = [p - t for p, t in zip(piles, turned, strict=True)]
    ended = np.zeros(np.broadcast(*piles).shape, dtype=bool)
    for value in left:
        ended = ended | (value <= 0)
    ender = np.zeros(ended.shape, dtype=np.intp)
    fewest = left[0]
    for i in range(1, n):
        fewer = left[i] < fewest
        ender = np.where(fewer, i, ender)
        fewest = np.where(fewer, left[i], fewest)
    length = sum(turned)
    if kind == TAKE:
        left[seat] = left[seat] + length
    after = tuple(np.clip(value, 0, SIZE - 1) for value in left)
    starter = seat if kind == WIN else (seat + 1) % n
    return after, ended, ender, starter


def start_values(starts: list, ends: dict, rounds: int = 4000) -> np.ndarray:
    """Two players: V[a, b], the starter's chance to win with a cards in its pile against b, by value
    iteration over the rows' outcomes from their start (`[turned..., kind, seat, count]`) until no value
    moves by 1e-12 (at most `rounds`)."""
    q = ender_wins(ends)
    a, b = np.meshgrid(np.arange(SIZE), np.arange(SIZE), indexing="ij")
    total = sum(outcome[-1] for outcome in starts)
    steps = []
    for *outcome, count in starts:
        (a2, b2), ended, ender, starter = walk(outcome, (a, b))
        steps.append((count / total, a2, b2, ended, np.where(ender == 0, q, 1 - q), starter))
    values = np.full((SIZE, SIZE), 0.5)
    for _ in range(rounds):
        new = np.zeros((SIZE, SIZE))
        for weight, a2, b2, ended, final, starter in steps:
            going = values[a2, b2] if starter == 0 else 1 - values[b2, a2]
            new += weight * np.where(ended, final, going)
        change = np.abs(new - values).max()
        values = new
        if change < 1e-12:
            break
    return values


def pair_values(pairs: list) -> np.ndarray:
    """Four players: P[role, SPAN + d, SPAN + e], the chance that a seat ends above another (a tie half) when
    its score is d above the other's and its pile e cards longer (both clipped to +-SPAN), role 0 if the first
    of them starts the next row, 1 the second, 2 another seat; from the cells counted at every row's start
    (`[role, d, e, twice the score, count]`), each blended with SMOOTH counts of the prior: the same role and
    score difference over all piles."""
    shape = (3, 2 * SPAN + 1, 2 * SPAN + 1)
    sums, counts = np.zeros(shape), np.zeros(shape)
    for role, d, e, twice, count in pairs:
        sums[role, d, e], counts[role, d, e] = twice / 2, count
    prior = (sums.sum(axis=2, keepdims=True) + SMOOTH * 0.5) / (counts.sum(axis=2, keepdims=True) + SMOOTH)
    return (sums + SMOOTH * prior) / (counts + SMOOTH)


def pair_index(difference: int) -> int:
    """A difference's index in the four-player table."""
    return SPAN + max(-SPAN, min(SPAN, difference))


def values(players: int, counts: dict) -> list:
    """The values of pile sizes from what the games counted (`counts_json`), rounded as the file holds them."""
    if players == 2:
        return np.round(start_values(counts["rows"]["start"], counts["ends"]), 6).tolist()
    return np.round(pair_values(counts["pairs"]), 4).tolist()


def build(players: int, seed: int, games: int) -> dict:
    """The tables of `players` (2 or 4) from `games` games of heuristic self-play (whole blocks), as JSON: the
    counts, a digest of each block's, and the values."""
    blocks = [record(players, deal_seeds(seed, block)) for block in range(-(-games // BLOCK))]
    counts = counts_json(merged(blocks))
    return {"players": players, "seed": seed, "games": len(blocks) * BLOCK,
            "blocks": [digest(counts_json(block)) for block in blocks],
            **counts, "values": values(players, counts)}
