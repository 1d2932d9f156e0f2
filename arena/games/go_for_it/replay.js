// Go For It in its replay page: the row, the passes, who played its last card, the decisions and the cards set aside;
// each seat's pile, top first. The replay page (arena/web/templates/replay.html) inlines this file after its script
// (arena/web/static/replay.js), in one function with the helpers it uses (el, split, card, cards, zone, seatName) and
// the GAME it fills in.
GAME.table = (f) => {
  const r = split(f.r);
  const out = [zone("row (" + r.length + ")", cards(r, "", (i) => i === r.length - 1 ? "last" : "")),
    zone("passes", el("div", "big", f.passes)),
    zone("last card by", el("div", "", seatName(f.last))),
    zone("decisions", el("div", "", f.decisions))];
  if (D.extra.set_aside) out.push(zone("set aside", cards(split(D.extra.set_aside), "mini", () => "down")));
  return out;
};
GAME.hand = (f, s) => {
  // A pile top first; the cards put there during play (known to all) have a green border.
  const pile = split(f.piles[s]);
  return [el("div", "", "pile " + pile.length + " \u00b7 won " + f.w[s]),
          cards(pile, "mini", (i) => i >= f.unseen[s] ? "known" : "")];
};
