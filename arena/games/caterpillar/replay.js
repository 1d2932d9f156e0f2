// Caterpillar in its replay page: the caterpillar, the running total and the stock's next card; each hand as the
// page draws every game's. arena/report/replay_page.py inlines this file in the page's script, after the helpers
// it uses (el, split, card, cards, zone, seatName) and the GAME it fills in.
GAME.table = (f) => {
  const c = split(f.c), k = split(f.k);
  return [zone("caterpillar (" + c.length + " cards)", cards(c, "", (i) => i === c.length - 1 ? "last" : "")),
          zone("total", el("div", "big", f.total)),
          zone("stock: " + k.length + (k.length ? ", next" : ""), cards(k.slice(0, 1), "", () => "down"))];
};
