// Give or Take in its replay page: the deal and its dealer, the turn-up, the count and the cards of this deal with the
// operation each made; each hand as the page draws every game's. The replay page (arena/web/templates/replay.html)
// inlines this file after its script (arena/web/static/replay.js), in one function with the helpers it uses (el, split,
// card, cards, zone, seatName) and the GAME it fills in.
const OPS = {"+": "+", "-": "\u2212", "/": "\u00f7", "*": "\u00d7", "k": "K"};
GAME.table = (f) => {
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
};
