"""A replay viewer: one self-contained HTML page that draws a game from its transcript, step by step.

The frames are computed here, by replaying the transcript through the engine (`referee.replay_steps`)
and reading each state's fields, and embedded in the page as JSON; the page's script only draws them.
A transcript holds the full deal layout, so a replay shows every hand, pile and face-down card.
Cards travel as their docs/rules.md names run together (`"7HTSJK"`: two characters a card), which keeps a
page of a few hundred steps at tens of kilobytes. Nothing is fetched: no network, no plotly.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from arena.atomic import write_atomic
from arena.cards import NAME, RANK, SUIT
from arena.games import get_game, make_rules
from arena.tournament import referee

TITLES = {"caterpillar": "Caterpillar", "give_or_take": "Give or Take", "go_for_it": "Go For It",
          "duke_of_york": "Duke of York"}


def replay_page_html(data: dict, back: tuple[str, str] | None = None) -> str:
    """The replay page of a transcript (as `referee.transcript` returns it) as one HTML document; `back`, an address
    and its words, is a link above the heading (a league's game links back to its leaderboard)."""
    game = get_game(data["game"])
    players = [str(p) for p in data["players"]]
    moves = [[number, entry["seat"], entry["move"]] for number, deal in enumerate(data["deals"])
             for entry in deal["moves"]]
    payload = {
        "game": game.id, "players": players, "term": getattr(game, "deal_name", "deal"),
        "deals": len(data["deals"]), "moves": moves, "frames": frames(data),
        "result": {key: data[key] for key in ("scores", "ranks", "termination", "fault_seat", "fault")},
        "extra": _extra(game.id, data),
        "asked": asked(data, len(moves)),
    }
    rules = ", ".join(f"{k}={v}" for k, v in data["rules"].items()) or "standard rules"
    title = f"{TITLES.get(game.id, game.id)} replay: {' v '.join(players)}"
    return PAGE.format(title=html.escape(title), heading=html.escape(TITLES.get(game.id, game.id)),
                       sub=html.escape(f"seed {data['seed']} · {rules} · {len(moves)} moves"),
                       style=STYLE, script=SCRIPT, data=_script_json(payload),
                       back="" if back is None else
                       f'<p class="sub"><a href="{html.escape(back[0])}">&larr; {html.escape(back[1])}</a></p>')


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


def _script_json(value: Any) -> str:
    """JSON that is safe inside a <script> element: no `<`, `>` or `&` can end it or open a comment."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


# --- frames -----------------------------------------------------------------------------------------

def frames(data: dict) -> list[dict]:
    """One JSON-able frame for the start and after each move (`m`: the move's index, -1 at the start).

    When a move ends a deal the engine deals the next one at once, so the state after it no longer
    shows the deal just finished: that move gets a synthesised "deal over" frame (the state before
    plus the move, with the scores after), followed by a frame of the new deal as dealt.
    """
    game = get_game(data["game"])
    draw, over = DRAW[game.id], OVER.get(game.id)
    term = getattr(game, "deal_name", "deal")
    state = game.new_state(make_rules(game.Rules, data["rules"]), data["seed"])
    ends, last = set(), -1  # index of each move that ends a deal with another deal after it
    for deal in data["deals"][:-1]:
        last += len(deal["moves"])
        ends.add(last)
    out = [_frame(game, draw, state, -1)]
    before = game.clone(state)
    for i, (number, seat, move, state) in enumerate(referee.replay_steps(data)):  # noqa: B007 - state used after
        if i in ends and over is not None:
            out.append({**_frame(game, draw, before, i), **over(before, state, seat, move),
                        "t": None, "s": game.scores(state), "d": game.describe(state)})
            out.append({**_frame(game, draw, state, i), "n": f"{term} {number + 2} dealt",
                        "d": "scores " + "-".join(map(str, game.scores(state)))})
        else:
            out.append(_frame(game, draw, state, i))
        before = game.clone(state)
    if data["fault_seat"] is not None:  # the game stopped at the fault: nobody is to move any more
        out[-1] = {**out[-1], "t": None}
    return out


def _frame(game, draw: Callable[[Any], dict], state: Any, move: int) -> dict:
    """What every game's frame has (move index, seat to move, scores, the engine's one-line account),
    and the game's own fields."""
    return {"m": move, "t": game.to_move(state), "s": game.scores(state), "d": game.describe(state), **draw(state)}


def _cards(cards: Iterable[int]) -> str:
    """Cards as their names run together: `7HTSJK`."""
    return "".join(NAME[c] for c in cards)


def _sorted(cards: Iterable[int]) -> str:
    """A hand in suit then rank order (jokers last), so that what changes between steps is easy to see."""
    return _cards(sorted(cards, key=lambda c: (SUIT[c] % 5, RANK[c])))  # the joker's -1 sorts as 4


def _caterpillar(state) -> dict:
    return {"h": [_sorted(h) for h in state.hands], "c": _cards(state.caterpillar), "k": _cards(state.stock),
            "total": state.total}


def _give_or_take(state) -> dict:
    return {"deal": state.deal, "dealer": state.dealer, "h": [_sorted(h) for h in state.hands],
            "u": NAME[state.turn_up], "p": [[s, NAME[c], op] for s, c, op in state.played], "count": state.count}


def _give_or_take_over(before, after, seat: int, move: str) -> dict:
    """The deal just finished: the state before its last play, with that play made."""
    from arena.games import give_or_take as gt

    card, op = gt.parse_move(move)
    hands = [list(h) for h in before.hands]
    hands[seat].remove(card)
    count = gt.step(before.count, gt.effective_value(card, before.prev), op)
    played = [[s, NAME[c], o] for s, c, o in before.played] + [[seat, NAME[card], op]]
    return {"h": [_sorted(h) for h in hands], "p": played, "count": count,
            "n": f"deal {before.deal} over: the last cards scored"}


def _go_for_it(state) -> dict:
    return {"piles": [_cards(p) for p in state.piles], "unseen": list(state.unseen), "r": _cards(state.row),
            "passes": state.passes, "w": [len(w) for w in state.winnings], "last": state.last,
            "decisions": state.decisions}


def _duke_of_york(state) -> dict:
    return {"round": state.round, "dealer": state.dealer, "h": [_sorted(h) for h in state.hands],
            "table": ["" if c is None else NAME[c] for c in state.table], "owner": list(state.owner),
            "taken": ["" if c is None else NAME[c] for c in state.taken], "count": state.count,
            "down": state.down, "peak": state.peak, "ps": state.peak_seat,
            "p": [[s, NAME[c]] for s, c in state.played], "stock": len(state.stock),
            "exchange": state.phase < 4}  # phases 0-3 are the exchange with the table


def _duke_of_york_over(before, after, seat: int, move: str) -> dict:
    """The round just finished: its plays and the engine's record of its top and bottom (`ended`)."""
    from arena.games import duke_of_york as dy

    _, card = dy.parse_move(move)
    hands = [list(h) for h in before.hands]
    hands[seat].remove(card)
    round_, peak, peak_seat, count, last = after.ended
    top = 3 if peak == 31 else 2 if peak == 30 else 1
    bottom = 3 if count == 0 else 2 if count == 1 else 1
    return {"h": [_sorted(h) for h in hands], "p": [[s, NAME[c]] for s, c in after.history[-1]],
            "count": count, "peak": peak, "ps": peak_seat, "down": True, "exchange": False,
            "n": f"round {round_} over: top of the hill {peak} scores {top} for seat {peak_seat}, "
                 f"bottom {count} scores {bottom} for seat {last}"}


DRAW: dict[str, Callable[[Any], dict]] = {"caterpillar": _caterpillar, "give_or_take": _give_or_take,
                                          "go_for_it": _go_for_it, "duke_of_york": _duke_of_york}
"""Per game: a state's own fields as JSON-able data."""
OVER: dict[str, Callable[[Any, Any, int, str], dict]] = {"give_or_take": _give_or_take_over,
                                                          "duke_of_york": _duke_of_york_over}
"""Per game with several deals: the fields of the frame that shows a deal just finished."""


def _extra(game_id: str, data: dict) -> dict:
    """Facts that never change during a game and so are not repeated in every frame."""
    if game_id == "go_for_it":
        return {"set_aside": "".join(data["deals"][0]["layout"]["set_aside"])}
    return {}


# --- the page ---------------------------------------------------------------------------------------

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<header>{back}<h1>{heading} replay</h1><p class="sub">{sub}</p></header>
<main>
<div id="board">
<div id="controls">
<button id="first" title="start (Home)">|&#x25C0;</button><button id="prev" title="back (Left)">&#x25C0;</button>
<button id="play" title="play / pause (Space)">&#x25B6;</button>
<button id="next" title="forward (Right)">&#x25B6;&#x25B6;</button>
<button id="last" title="end (End)">&#x25B6;|</button><span id="step"></span>
</div>
<div id="status"><span id="describe"></span><span id="note"></span></div>
<div id="table"></div>
<div id="seats"></div>
<div id="result" hidden></div>
<div id="asked" hidden></div>
</div>
<aside><h2>Moves</h2><ol id="moves"></ol></aside>
</main>
<script type="application/json" id="replay-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; color: #222; background: #f4f4f0; margin: 0 auto; padding: 12px 20px;
       max-width: 1400px; }
h1 { font-size: 22px; margin: 4px 0 0; } h2 { font-size: 15px; margin: 0 0 6px; }
.sub { color: #666; margin: 2px 0 10px; }
main { display: flex; gap: 16px; align-items: flex-start; }
#board { flex: 1; min-width: 0; }
aside { width: 260px; background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px;
        max-height: 85vh; overflow-y: auto; }
#asked { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px; margin-top: 10px; }
#asked pre { white-space: pre-wrap; font: 12px/1.4 ui-monospace, monospace; margin: 4px 0; max-height: 40vh;
             overflow-y: auto; background: #f7f7f7; padding: 6px; }
#moves { margin: 0; padding: 0; list-style: none; font: 13px/1.5 ui-monospace, monospace; }
#moves li.deal { font: bold 12px system-ui, sans-serif; color: #555; margin-top: 6px; }
#moves li.move { cursor: pointer; padding: 0 4px; border-radius: 3px; white-space: nowrap; overflow: hidden;
                 text-overflow: ellipsis; }
#moves li.move:hover { background: #eef; }
#moves li.current { background: #ffd54f; font-weight: bold; }
#controls { display: flex; align-items: center; gap: 6px; margin-bottom: 8px; }
#controls button { font-size: 16px; min-width: 42px; height: 32px; cursor: pointer; border: 1px solid #bbb;
                   border-radius: 5px; background: #fff; }
#controls button:hover { background: #eef; }
#step { margin-left: 10px; color: #444; }
#status { min-height: 20px; margin-bottom: 8px; font: 13px ui-monospace, monospace; }
#note { margin-left: 12px; color: #a33; font-weight: bold; font-family: system-ui, sans-serif; }
#table { background: #2f6b47; color: #fff; border-radius: 10px; padding: 12px 14px; margin-bottom: 10px;
         display: flex; flex-wrap: wrap; gap: 14px 28px; align-items: flex-start; min-height: 90px; }
.zone .label { font-size: 12px; opacity: .85; margin-bottom: 4px; }
.big { font-size: 34px; font-weight: bold; line-height: 1.1; }
#seats { display: grid; gap: 8px; }
.seat { background: #fff; border: 2px solid #ddd; border-radius: 8px; padding: 6px 10px; }
.seat.to-move { border-color: #e0a800; box-shadow: 0 0 0 2px #ffe08a; }
.seat .top { display: flex; gap: 12px; align-items: baseline; margin-bottom: 4px; }
.seat .name { font-weight: bold; } .seat .score { font-size: 16px; }
.badge { font-size: 11px; padding: 1px 6px; border-radius: 8px; background: #e8e8e8; }
.badge.turn { background: #ffd54f; }
.cards { display: flex; flex-wrap: wrap; gap: 4px; min-height: 56px; align-items: flex-end; }
.card { width: 38px; height: 54px; background: #fff; color: #111; border: 1px solid #999; border-radius: 5px;
        display: inline-flex; flex-direction: column; align-items: center; justify-content: center;
        box-shadow: 1px 1px 2px rgba(0,0,0,.25); position: relative; font-family: Georgia, serif; }
.card b { font-size: 15px; line-height: 1; } .card i { font-style: normal; font-size: 20px; line-height: 1.1; }
.card.red { color: #c8102e; } .card.joker { color: #6a1b9a; }
.card.last { outline: 3px solid #ffd54f; }
.card.down { background: repeating-linear-gradient(45deg, #fff, #fff 4px, #e3e8f4 4px, #e3e8f4 8px); }
.card .op { position: absolute; bottom: -17px; font: bold 12px system-ui, sans-serif; color: #fff; }
.card .who { position: absolute; top: -15px; font: 10px system-ui, sans-serif; color: #fff; opacity: .85; }
.played .cards { gap: 6px; padding-top: 12px; padding-bottom: 14px; }
.mini .card { width: 24px; height: 34px; border-radius: 3px; } .mini .card b { font-size: 11px; }
.mini .card i { font-size: 12px; } .mini.cards { gap: 2px; min-height: 36px; }
.mini .card.known { border-color: #2f6b47; border-width: 2px; }
.empty { display: inline-block; width: 38px; height: 54px; border: 2px dashed rgba(255,255,255,.5);
         border-radius: 5px; }
#result { background: #fff; border: 2px solid #2f6b47; border-radius: 8px; padding: 8px 12px; margin-top: 10px; }
#result table { border-collapse: collapse; } #result td, #result th { padding: 2px 12px 2px 0; text-align: left; }
#result .fault { color: #c00; font-weight: bold; }
"""

SCRIPT = r"""
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("replay-data").textContent);
  const F = D.frames, P = D.players;
  const SUIT = {C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660"};
  const OPS = {"+": "+", "-": "\u2212", "/": "\u00f7", "*": "\u00d7", "k": "K"};
  const $ = (id) => document.getElementById(id);
  let at = 0, timer = null;

  // Every text goes in through textContent, never as HTML: player names and faults are untrusted.
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function split(s) { const out = []; for (let i = 0; i < s.length; i += 2) out.push(s.slice(i, i + 2)); return out; }
  function card(name, cls) {
    const c = el("span", "card" + (cls ? " " + cls : ""));
    c.title = name;
    if (name === "JK") { c.classList.add("joker"); c.append(el("b", "", "JK"), el("i", "", "\u2605")); return c; }
    if (name[1] === "H" || name[1] === "D") c.classList.add("red");
    c.append(el("b", "", name[0] === "T" ? "10" : name[0]), el("i", "", SUIT[name[1]]));
    return c;
  }
  function cards(names, cls, mark) {
    const d = el("div", "cards" + (cls ? " " + cls : ""));
    names.forEach((n, i) => d.append(card(n, mark ? mark(i, n) : "")));
    return d;
  }
  function zone(label, ...items) {
    const z = el("div", "zone");
    z.append(el("div", "label", label), ...items);
    return z;
  }
  function seatName(s) { return s === null || s === undefined || s < 0 ? "nobody" : P[s]; }

  // Per game: the table in the middle, and what each seat holds.
  const TABLE = {
    caterpillar(f) {
      const c = split(f.c), k = split(f.k);
      return [zone("caterpillar (" + c.length + " cards)", cards(c, "", (i) => i === c.length - 1 ? "last" : "")),
              zone("total", el("div", "big", f.total)),
              zone("stock: " + k.length + (k.length ? ", next" : ""), cards(k.slice(0, 1), "", () => "down"))];
    },
    give_or_take(f) {
      const played = el("div", "cards");
      f.p.forEach(([s, name, op], i) => {
        const c = card(name, i === f.p.length - 1 ? "last" : "");
        c.append(el("span", "op", OPS[op] || op), el("span", "who", "seat " + s));
        played.append(c);
      });
      const z = zone("played this deal", played);
      z.classList.add("played");
      return [zone("deal " + f.deal, el("div", "", "dealer: " + seatName(f.dealer))),
              zone("turn-up", cards([f.u])), zone("count", el("div", "big", f.count)), z];
    },
    go_for_it(f) {
      const r = split(f.r);
      const out = [zone("row (" + r.length + ")", cards(r, "", (i) => i === r.length - 1 ? "last" : "")),
        zone("passes", el("div", "big", f.passes)),
        zone("last card by", el("div", "", seatName(f.last))),
        zone("decisions", el("div", "", f.decisions))];
      if (D.extra.set_aside) out.push(zone("set aside", cards(split(D.extra.set_aside), "mini", () => "down")));
      return out;
    },
    duke_of_york(f) {
      const slots = el("div", "cards");
      f.table.forEach((name, i) => {
        const who = f.owner[i] >= 0 ? " (put by " + seatName(f.owner[i]) + ")" : "";
        slots.append(zone("slot " + i + who, name ? card(name, "down") : el("span", "empty")));
      });
      const played = el("div", "cards");
      f.p.forEach(([s, name], i) => {
        const c = card(name, i === f.p.length - 1 ? "last" : "");
        c.append(el("span", "who", "seat " + s));
        played.append(c);
      });
      const z = zone("played this round", played);
      z.classList.add("played");
      const peak = f.peak < 0 ? "-" : f.peak + " by " + seatName(f.ps);
      return [zone("round " + f.round + " of 0–4", el("div", "", f.exchange ? "exchange" : "play"),
                   el("div", "", "dealer: " + seatName(f.dealer))),
              zone("count", el("div", "big", f.count + (f.down ? " \u2193" : " \u2191"))),
              zone("top of the hill", el("div", "", peak)), zone("table (face down)", slots),
              zone("stock", el("div", "", f.stock + " cards")), z];
    },
  };
  const HAND = {
    go_for_it(f, s) {
      // A pile top first; the cards put there during play (known to all) have a green border.
      const pile = split(f.piles[s]);
      return [el("div", "", "pile " + pile.length + " \u00b7 won " + f.w[s]),
              cards(pile, "mini", (i) => i >= f.unseen[s] ? "known" : "")];
    },
    duke_of_york(f, s) {
      const out = [cards(split(f.h[s]))];
      if (f.taken[s]) out.push(el("div", "", "took " + f.taken[s] + " from the table"));
      return out;
    },
  };
  const hand = (f, s) => (HAND[D.game] || ((f, s) => [cards(split(f.h[s]))]))(f, s);

  // The move list, built once; the first frame of each move is where a click on it goes.
  const first = {};
  F.forEach((f, i) => { if (!(f.m in first)) first[f.m] = i; });
  const items = [];
  let deal = -1;
  D.moves.forEach(([number, seat, text], i) => {
    if (number !== deal && D.deals > 1) $("moves").append(el("li", "deal", D.term + " " + number));
    deal = number;
    const li = el("li", "move", (i + 1) + ". " + P[seat] + ": " + text);
    li.title = P[seat] + " (seat " + seat + "): " + text;
    li.dataset.move = i;
    li.addEventListener("click", () => { stop(); show(first[i]); });
    $("moves").append(li);
    items.push(li);
  });

  function result() {
    const r = D.result, box = $("result");
    box.replaceChildren(el("h2", "", "Result: " + r.termination));
    const t = el("table");
    const head = el("tr");
    ["place", "seat", "player", "score"].forEach((h) => head.append(el("th", "", h)));
    t.append(head);
    P.map((p, s) => s).sort((a, b) => r.ranks[a] - r.ranks[b] || a - b).forEach((s) => {
      const tr = el("tr");
      [r.ranks[s] + 1, s, P[s], r.scores[s]].forEach((v) => tr.append(el("td", "", v)));
      t.append(tr);
    });
    box.append(t);
    if (r.fault_seat !== null) box.append(el("p", "fault", "seat " + r.fault_seat + " (" + P[r.fault_seat] +
                                               ") forfeits: " + r.termination + ": " + r.fault));
  }

  function show(i) {
    at = Math.max(0, Math.min(F.length - 1, i));
    const f = F[at];
    $("step").textContent = "step " + at + " / " + (F.length - 1);
    $("describe").textContent = f.d;
    $("note").textContent = f.n || "";
    $("table").replaceChildren(...TABLE[D.game](f));
    $("seats").replaceChildren(...P.map((name, s) => {
      const box = el("div", "seat" + (f.t === s ? " to-move" : "")), top = el("div", "top");
      top.append(el("span", "name", name), el("span", "badge", "seat " + s), el("span", "score", "score " + f.s[s]));
      if (f.dealer === s) top.append(el("span", "badge", "dealer"));
      if (f.t === s) top.append(el("span", "badge turn", "to move"));
      box.append(top, ...hand(f, s));
      return box;
    }));
    items.forEach((li) => li.classList.remove("current"));
    const li = items[f.m];
    if (li) {
      li.classList.add("current");
      const list = li.parentElement.parentElement;  // keep it in view inside the list only, not the page
      if (li.offsetTop < list.scrollTop || li.offsetTop > list.scrollTop + list.clientHeight - 24)
        list.scrollTop = li.offsetTop - list.clientHeight / 2;
    }
    $("result").hidden = at !== F.length - 1;
    const forfeit = at === F.length - 1 && D.asked && D.asked[D.moves.length];  // the decision a model forfeited
    asked(forfeit ? D.moves.length : f.m, forfeit ? D.result.fault_seat : null);
    document.body.dataset.frame = at;
  }
  // A model seat's exchange beside its move: what it was shown, and each answer it gave (the last one played).
  function asked(index, seat) {
    const box = $("asked"), ex = D.asked && index >= 0 ? D.asked[index] : null;
    box.hidden = !ex;
    if (!ex) return;
    const who = P[seat === null ? D.moves[index][1] : seat];
    box.replaceChildren(el("h2", "", who + " was shown"), el("pre", "prompt", ex.prompt),
                        el("h2", "", "and answered"),
                        ...ex.answers.map((a, i) => el("pre", "answer", (i + 1) + ". " + a)));
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; } $("play").textContent = "\u25B6"; }
  function play() {
    if (timer) { stop(); return; }
    if (at === F.length - 1) show(0);
    $("play").textContent = "||";
    timer = setInterval(() => { if (at >= F.length - 1) stop(); else show(at + 1); }, 700);
  }
  $("first").onclick = () => { stop(); show(0); };
  $("prev").onclick = () => { stop(); show(at - 1); };
  $("next").onclick = () => { stop(); show(at + 1); };
  $("last").onclick = () => { stop(); show(F.length - 1); };
  $("play").onclick = play;
  // A clicked button keeps no focus, so Space means play/pause rather than pressing that button again.
  document.querySelectorAll("#controls button").forEach(
    (b) => b.addEventListener("mousedown", (e) => e.preventDefault()));
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.tagName === "BUTTON" && (e.key === " " || e.key === "Enter")) return;  // the button's own action
    const act = {ArrowRight: () => $("next").onclick(), ArrowLeft: () => $("prev").onclick(),
                 Home: () => $("first").onclick(), End: () => $("last").onclick(), " ": play}[e.key];
    if (act) { e.preventDefault(); act(); }
  });
  result();
  show(0);
  window.replay = {show, frames: F.length, get at() { return at; }};
})();
"""
