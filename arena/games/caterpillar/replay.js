// Caterpillar in its replay page: the caterpillar, the running total and the stock's next card; each hand as the page
// draws every game's. The replay page (arena/web/templates/replay.html) inlines this file after its script
// (arena/web/static/replay.js), in one function with the helpers it uses (el, split, card, cards, zone, seatName) and
// the GAME it fills in.
GAME.table = (f) => {
  const c = split(f.c), k = split(f.k);
  return [zone("caterpillar (" + c.length + " cards)", cards(c, "", (i) => i === c.length - 1 ? "last" : "")),
          zone("total", el("div", "big", f.total)),
          zone("stock: " + k.length + (k.length ? ", next" : ""), cards(k.slice(0, 1), "", () => "down"))];
};
