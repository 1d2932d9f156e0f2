"""A replay viewer: one self-contained HTML page that draws a game from its transcript, step by step.

The frames are computed here, by replaying the transcript through the engine (`referee.replay_steps`)
and asking the game's view (`arena/games/<game>/views.py`) for each state's fields, and embedded in the page as
JSON; the page's script only draws them, with the game's own drawing (`replay.js` beside its views).
A transcript holds the full deal layout, so a replay shows every hand, pile and face-down card.
Cards travel as their docs/rules.md names run together (`"7HTSJK"`: two characters a card), which keeps a
page of a few hundred steps at tens of kilobytes. Nothing is fetched: no network, no plotly.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from arena.atomic import write_atomic
from arena.games import get_game, get_view, make_rules
from arena.games.views import View
from arena.tournament import referee


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
    rules = ", ".join(f"{k}={v}" for k, v in data["rules"].items()) or "standard rules"
    title = f"{view.title} replay: {' v '.join(players)}"
    return PAGE.format(title=html.escape(title), heading=html.escape(view.title),
                       sub=html.escape(f"seed {data['seed']} · {rules} · {len(moves)} moves"),
                       style=STYLE, script=SCRIPT.replace(GAME_SCRIPT, view.script()), data=_script_json(payload),
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

GAME_SCRIPT = "/* the game's replay.js */"
"""Where SCRIPT takes the game's own drawing (`View.script`): inside its function, after the helpers it uses."""

SCRIPT = r"""
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("replay-data").textContent);
  const F = D.frames, P = D.players;
  const SUIT = {C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660"};
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

  // The game's own drawing (its replay.js, View.script): GAME.table(f), the table in the middle, and GAME.hand(f, s),
  // what seat s holds: its cards unless the game draws them otherwise.
  const GAME = {hand: (f, s) => [cards(split(f.h[s]))]};
/* the game's replay.js */

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
    $("table").replaceChildren(...GAME.table(f));
    $("seats").replaceChildren(...P.map((name, s) => {
      const box = el("div", "seat" + (f.t === s ? " to-move" : "")), top = el("div", "top");
      top.append(el("span", "name", name), el("span", "badge", "seat " + s), el("span", "score", "score " + f.s[s]));
      if (f.dealer === s) top.append(el("span", "badge", "dealer"));
      if (f.t === s) top.append(el("span", "badge turn", "to move"));
      box.append(top, ...GAME.hand(f, s));
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
