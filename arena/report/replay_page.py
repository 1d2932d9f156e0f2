"""A replay viewer: one self-contained HTML page that draws a game from its transcript, step by step.

The frames are computed here, by replaying the transcript through the engine (`referee.replay_steps`)
and asking the game's view (`arena/games/<game>/views.py`) for each state's fields, and embedded as JSON in the page
(arena/web/templates/replay.html); the page's script (arena/web/static/replay.js) only draws them, with the game's own
drawing (`replay.js` beside its views).
A transcript holds the full deal layout, so a replay shows every hand, pile and face-down card.
Cards travel as their docs/rules.md names run together (`"7HTSJK"`: two characters a card), which keeps a
page of a few hundred steps at tens of kilobytes. Nothing is fetched: no network, no plotly.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from arena.atomic import write_atomic
from arena.games import get_game, get_view, make_rules
from arena.games.views import View
from arena.tournament import referee
from arena.web import environment


def replay_page_html(data: dict, back: tuple[str, str] | None = None) -> str:
    """The replay page of a transcript (as `referee.transcript` returns it) as one HTML document; `back`, an address
    and its words, is a link above the heading (a league's game links back to its leaderboard)."""
    game, view = get_game(data["game"]), get_view(data["game"])
    players = [str(p) for p in data["players"]]
    moves = [[number, entry["seat"], entry["move"]] for number, deal in enumerate(data["deals"])
             for entry in deal["moves"]]
    payload = {
        "game": game.id, "players": players, "term": getattr(game, "deal_name", "deal"),
        "deals": len(data["deals"]), "moves": moves, "frames": frames(data),
        "result": {key: data[key] for key in ("scores", "ranks", "termination", "fault_seat", "fault")},
        "extra": view.extra(data),
        "asked": asked(data, len(moves)),
    }
    return replay_template().render(view=view, seed=data["seed"], rules=data["rules"], payload=payload,
                                    game_script=view.script(), back=back)


@cache
def replay_template() -> jinja2.Template:
    """replay.html, read and compiled once a process; its JSON compact and in the payload's order, to keep a page of a
    few hundred steps at tens of kilobytes."""
    env = environment()
    env.policies["json.dumps_kwargs"] = {"separators": (",", ":"), "ensure_ascii": False}
    return env.get_template("replay.html")


def asked(data: dict, moves: int) -> list | None:
    """What a model seat was shown and answered (arena/llm/seat.py) for each move in order, None for a move of any
    other seat; one more entry for the decision a model forfeited, if any. None when no model played."""
    exchanges = data.get("exchanges")
    if not exchanges:
        return None
    left = [list(seat or []) for seat in exchanges]
    out = []
    for deal in data["deals"]:
        for entry in deal["moves"]:
            seat = entry["seat"]
            out.append(left[seat].pop(0) if left[seat] else None)
    fault = data.get("fault_seat")
    out.append(left[fault].pop(0) if fault is not None and left[fault] else None)
    return out


def write_replay_page(data: dict, path: Path) -> Path:
    """Writes the replay page of a transcript to `path` (atomically, folders made as needed); returns it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, replay_page_html(data).encode())
    return path


# --- frames -----------------------------------------------------------------------------------------

def frames(data: dict) -> list[dict]:
    """One JSON-able frame for the start and after each move (`m`: the move's index, -1 at the start).

    When a move ends a deal the engine deals the next one at once, so the state after it no longer
    shows the deal just finished: that move gets a synthesised "deal over" frame (the state before
    plus the move, with the scores after), followed by a frame of the new deal as dealt.
    """
    game, view = get_game(data["game"]), get_view(data["game"])
    term = getattr(game, "deal_name", "deal")
    state = game.new_state(make_rules(game.Rules, data["rules"]), data["seed"])
    ends, last = set(), -1  # index of each move that ends a deal with another deal after it
    for deal in data["deals"][:-1]:
        last += len(deal["moves"])
        ends.add(last)
    out = [_frame(game, view, state, -1)]
    before = game.clone(state)
    for i, (number, seat, move, state) in enumerate(referee.replay_steps(data)):  # noqa: B007 - state used after
        over = view.deal_over(before, state, seat, move) if i in ends else None
        if over is not None:
            out.append({**_frame(game, view, before, i), **over,
                        "t": None, "s": game.scores(state), "d": game.describe(state)})
            out.append({**_frame(game, view, state, i), "n": f"{term} {number + 2} dealt",
                        "d": "scores " + "-".join(map(str, game.scores(state)))})
        else:
            out.append(_frame(game, view, state, i))
        before = game.clone(state)
    if data["fault_seat"] is not None:  # the game stopped at the fault: nobody is to move any more
        out[-1] = {**out[-1], "t": None}
    return out


def _frame(game, view: View, state: Any, move: int) -> dict:
    """What every game's frame has (move index, seat to move, scores, the engine's one-line account),
    and the game's own fields."""
    return {"m": move, "t": game.to_move(state), "s": game.scores(state), "d": game.describe(state),
            **view.frame(state)}
