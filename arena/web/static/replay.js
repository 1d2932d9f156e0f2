// The replay page's script (templates/replay.html): it draws the frames of the page's JSON (arena/report/replay_page.py)
// and steps through them with the buttons, the keys and the move list. The page runs it, then the game's own drawing
// (its replay.js, View.script), then `start()`, all in one function: the game's drawing sees the helpers below and
// fills in GAME, and nothing reaches the window but `window.replay`.
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

// What the game's drawing fills in: GAME.table(f), the table in the middle, and GAME.hand(f, s), what seat s holds:
// its cards unless the game draws them otherwise.
const GAME = {hand: (f, s) => [cards(split(f.h[s]))]};

const first = {};  // the first frame of each move: where a click on it goes
const items = [];  // the move list's entries, one a move

// The move list, the controls and the first frame, once the game's drawing is in.
function start() {
  F.forEach((f, i) => { if (!(f.m in first)) first[f.m] = i; });
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
}

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
