"""Every game plays exactly as it did when the golden transcripts were recorded (tests/golden.py):
same deals, same moves, same scores, for every rules variant and bundled bot, ismcts's sampled worlds
included."""

import gzip
import json

import pytest
from golden import PATH, cases, play_case

GOLDEN = [json.loads(line) for line in gzip.decompress(PATH.read_bytes()).splitlines()]
CASES = list(cases())


def test_the_golden_file_covers_every_case():
    assert len(GOLDEN) == len(CASES) >= 250
    assert [(g["game"], g["players"], g["seed"]) for g in GOLDEN] == [(c[0], c[2], c[3]) for c in CASES]
    assert {g["termination"] for g in GOLDEN} >= {"normal", "court_short"}


@pytest.mark.parametrize("number", range(0, len(CASES), 10))
def test_games_replay_bit_for_bit(number):
    """Ten golden games per test, played again and compared whole."""
    for case, golden in zip(CASES[number:number + 10], GOLDEN[number:number + 10], strict=True):
        again = json.loads(json.dumps(play_case(*case), sort_keys=True))
        assert again == golden, f"{case}: the engine no longer plays this game as recorded"
