// Duke of York in its replay page: the round and its phase, the count and its direction, the top of the hill, the two
// face-down slots of the table, the stock and the cards of this round; each hand with the card its seat took from the
// table. The replay page (arena/web/templates/replay.html) inlines this file after its script
// (arena/web/static/replay.js), in one function with the helpers it uses (el, split, card, cards, zone, seatName) and
// the GAME it fills in.
GAME.table = (f) => {
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
};
GAME.hand = (f, s) => {
  const out = [cards(split(f.h[s]))];
  if (f.taken[s]) out.push(el("div", "", "took " + f.taken[s] + " from the table"));
  return out;
};
