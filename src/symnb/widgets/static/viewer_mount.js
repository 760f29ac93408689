// symnb viewer, part 7 of 7: the view, its state and its events. Opens and closes
// groups, selects, searches, pans, zooms, colours by an overlay: all here, with no kernel
// message (its page is part 5, its starting state part 6). Options:
//   model: the decoded view model; state: {open, selected, overlay} to start from;
//   elkSource: ELK's worker source (none: the simple layout), or elk: an SN.ElkRunner
//   (the live view's, started while its source comes; elkWaitMs: how long a layout waits
//   for that source before drawing simply, ELK's layout following); details(id, host): fills
//   the card's kernel part (a live kernel's heatmaps) or says what was not saved;
//   onState(state): told after each successful draw (the live view saves it, debounced);
//   the state holds the drawn layout (`layout`: its open groups and geometry), which a
//   view started from that state draws again instead of laying out anew (the saved view
//   opens at the live view's positions).
// Returns {destroy, view}: destroy() removes every listener, timer and worker it made.

const MIN_ZOOM_FIT = 9 / 12;  // fit never draws text under 9 px
const LAYOUT_TIMEOUT_MS = 20000;
const ELK_WAIT_DEFAULT_MS = 2000;  // a first paint waits this long at most for ELK's source
const MAX_VIEWPORT_H = 680;  // px: the tallest a view grows by itself (its corner drags it taller)
const SAVED_LAYOUT_BOXES = 150;  // a bigger layout is not kept in the state: about 400 bytes a box (77 boxes: 31 kB) in each saved notebook
const BIG_VIEW = 100;  // boxes and frames
const ELK_MAX_BOXES = 1000;  // a bigger view is laid out simply (see layoutFor)
const IDLE_WARM_UPS = 6;  // ELK layouts of 120 boxes run after the first paint (SN.ElkRunner.warmUp)

SN.mount = function mount(host, options) {
  // ELK's worker first: it reads its 1.6 MB script on its own thread while the model is indexed.
  const elk = options.elk || (options.elkSource ? new SN.ElkRunner(options.elkSource) : null);
  if (elk) elk.start().catch(() => { /* the first layout reports it */ });
  const ix = SN.indexModel(options.model);
  const disposers = [];
  const on = (target, type, fn, opts) => { target.addEventListener(type, fn, opts); disposers.push(() => target.removeEventListener(type, fn, opts)); };
  const timers = new Set();
  const later = (fn, ms) => { const t = setTimeout(() => { timers.delete(t); fn(); }, ms); timers.add(t); return t; };
  const cancel = (t) => { clearTimeout(t); timers.delete(t); };

  // -- the page (part 5) ---------------------------------------------------------------------
  const { search, found, zoomOut, zoomIn, fitButton, mapButton, cardButton, overlayMenu, status, hits, legendHost, viewport, layer, mini, cardHost, side } = SN.viewerPage(host, options.model, options.live);
  let mapShown = true;  // the minimap shown while the picture is bigger than the view
  let cardShown = true;  // the card panel (folded away: the view takes its width)

  // -- state: changed only after a successful draw ------------------------------------------
  const start = SN.startState(ix, options.model, options.state);
  let open = start.open, selected = start.selected, overlay = start.overlay;
  // Counts the user's selections: a click made while a layout is on its way wins over the
  // selection that layout was asked with (ELK's late layout would otherwise undo the click).
  let selections = 0;
  overlayMenu.value = overlay;
  let geo = null, view = { scale: 1, tx: 0, ty: 0 }, boxOf = SN.boxMap(ix, open).boxOf;
  let generation = 0, lastEngine = "";
  // The layout the state was saved with: drawn again (not laid out anew) while the same
  // groups are open and the picture holds the same boxes (SN.storedGeometry).
  const stored = start.layout;
  let layoutKey = "";  // the open groups and engine of the layout drawn
  const openKey = SN.openKey;
  // The state goes out only when it changed: a redraw that changes nothing the user chose
  // (a Python command already in force) sends nothing; a new layout (ELK's replacing the
  // simple one) goes out with it, for the saved view.
  const stateKey = () => JSON.stringify([[...open].sort(), selected, overlay, layoutKey]);
  let reported = stateKey();
  const report = () => {
    const key = stateKey();
    if (key === reported) return;
    reported = key;
    if (!options.onState) return;
    const state = { open: [...open], selected, overlay };
    if (geo && geo.boxes.size <= SAVED_LAYOUT_BOXES) state.layout = { open: [...open].sort(), geometry: SN.packGeometry(geo) };
    options.onState(state);
  };

  const applyView = () => {
    layer.setAttribute("transform", `translate(${view.tx.toFixed(1)} ${view.ty.toFixed(1)}) scale(${view.scale.toFixed(4)})`);
    host.dataset.scale = view.scale.toFixed(4);
    if (!geo) return;
    // The picture's whole extent on screen (the region titles stand above its top).
    const x0 = view.tx, y0 = view.ty - 24 * view.scale;
    const fits = x0 >= -1 && y0 >= -1 && x0 + geo.width * view.scale <= viewport.clientWidth + 1 &&
      view.ty + geo.height * view.scale <= viewport.clientHeight + 1;
    mini.hidden = fits || !mapShown;
    mapButton.hidden = fits;
    mapButton.setAttribute("aria-pressed", String(mapShown));
    mapButton.title = `${mapShown ? "hide" : "show"} the minimap`;
    cardButton.setAttribute("aria-pressed", String(cardShown));
    cardButton.title = cardShown ? "fold the card panel away (the view takes its width)" : "show the card panel";
    cardHost.hidden = !cardShown;
    side.hidden = mini.hidden && !cardShown;
    if (!mini.hidden) SN.minimap(mini, geo, { x: -view.tx / view.scale, y: -view.ty / view.scale, w: viewport.clientWidth / view.scale, h: viewport.clientHeight / view.scale });
  };

  // The scale showing the whole picture (its region titles too) in the view.
  const wholeScale = () => Math.min(1, (viewport.clientWidth - 24) / geo.width, (viewport.clientHeight - 36) / (geo.height + 24));
  // fit: the whole picture, its text at 9 px or more; pressed again while the picture
  // still does not fit, smaller than that (the whole picture, however small its text).
  let flooredAt = null;  // the view the last fit left at the 9 px floor
  // `pressed`: the user's press (the first draw's fit is not one: a first press after it
  // keeps the 9 px floor).
  const fit = (pressed = true) => {
    if (!geo) return;
    const whole = wholeScale();
    const again = flooredAt && flooredAt.scale === view.scale && flooredAt.tx === view.tx && flooredAt.ty === view.ty;
    view.scale = again ? whole : Math.max(whole, MIN_ZOOM_FIT);
    view.tx = Math.max((viewport.clientWidth - geo.width * view.scale) / 2, 12);
    view.ty = 12 + 24 * view.scale;
    flooredAt = pressed && view.scale > whole ? { ...view } : null;
    applyView();
  };

  const sizeViewport = () => {
    if (!geo) return;
    // Tall enough for the whole picture at its fitted width (up to MAX_VIEWPORT_H); grows,
    // never shrinks under the user (who may also drag its corner).
    const scale = Math.max(Math.min(1, (viewport.clientWidth - 24) / geo.width), MIN_ZOOM_FIT);
    const want = Math.round(Math.min(Math.max((geo.height + 24) * scale + 40, 260), MAX_VIEWPORT_H));
    if (want > viewport.clientHeight) viewport.style.height = `${want}px`;
  };

  // Screen point of a box (for keeping the selection in place across a redraw).
  const screenOf = (id) => {
    if (!geo || !id) return null;
    const r = geo.boxes.get(id) || geo.frames.get(id);
    return r ? { x: view.tx + (r.x + r.w / 2) * view.scale, y: view.ty + r.y * view.scale } : null;
  };

  // Whether ELK's source is here, waiting up to elkWaitMs for it; when it comes later, the
  // view is laid out again by ELK (once), as the user left it.
  let upgrading = false;
  async function elkCame() {
    if (elk.arrived) return true;
    let timer = null;
    const came = await Promise.race([elk.source.then((text) => Boolean(text), () => false),
      new Promise((resolve) => { timer = later(() => resolve(false), options.elkWaitMs ?? ELK_WAIT_DEFAULT_MS); })]);
    cancel(timer);
    if (!came && !upgrading) {
      upgrading = true;
      elk.source.then((text) => { if (text && !destroyed) show(open, selected, selected); }, () => {});
    }
    return came;
  }

  async function layoutFor(nextOpen) {
    const nextBoxOf = SN.boxMap(ix, nextOpen).boxOf;
    const tree = SN.visibleTree(ix, nextOpen, nextBoxOf);
    const bundles = SN.boxEdges(ix, nextBoxOf);
    const { graphs, across } = SN.layoutGraphs(ix, tree, bundles);
    const kept = SN.storedGeometry(stored, nextOpen, graphs);
    if (kept) return { geo: kept, engine: "the saved layout", why: "", nextBoxOf };
    let laid, engine = "ELK layered", why = "";
    const failing = options.failLayout || "";  // tests: "elk" or "all"
    if (!elk && !failing) {  // the saved view: ELK is not saved with each notebook output
      return { laid: graphs.map((g) => SN.simpleLayout(g)), across, engine: "simple layered layout", why: "", nextBoxOf };
    }
    if (!failing && !(await elkCame())) {  // the live view, its kernel busy or gone
      return { laid: graphs.map((g) => SN.simpleLayout(g)), across, engine: "simple layered layout", nextBoxOf,
        why: "ELK's source has not come from the kernel yet (a busy kernel answers after its running cells); ELK lays the view out when it comes" };
    }
    // Past ELK_MAX_BOXES ELK takes tens of seconds (2,001 boxes: 11-15 s; a 1,502-box flat
    // view never finished): the simple layout draws it in under a second, and says so.
    const boxes = graphs.reduce((sum, g) => sum + SN.boxesIn(g), 0);
    if (!failing && boxes > ELK_MAX_BOXES) {
      return { laid: graphs.map((g) => SN.simpleLayout(g)), across, engine: "simple layered layout", nextBoxOf,
        why: `${boxes} boxes, past the ${ELK_MAX_BOXES} ELK lays out in seconds` };
    }
    try {
      if (failing) throw new Error(`forced failure (${failing})`);
      laid = await Promise.all(graphs.map((g) => elk.layout(SN.lighterGraph(g, BIG_VIEW), LAYOUT_TIMEOUT_MS)));
    } catch (err) {
      why = err && err.message ? err.message : String(err);
      if (failing === "all") throw new Error(`layout failed: ${why}; the simple layout was forced to fail too`);
      laid = graphs.map((g) => SN.simpleLayout(JSON.parse(JSON.stringify(g))));
      engine = "simple layered layout";
    }
    return { laid, across, engine, why, nextBoxOf };
  }

  // Lay out and draw `nextOpen`; the state (open groups, selection) changes only if it drew.
  async function show(nextOpen, nextSelected, keep) {
    const mine = ++generation;
    const selectionsBefore = selections;
    const started = performance.now();
    const anchor = keep && screenOf(boxOf(keep));
    status.textContent = "laying out\u2026";
    let result;
    try {
      result = await layoutFor(nextOpen);
    } catch (err) {
      if (mine !== generation) return false;
      status.textContent = `${err.message}: the previous view is kept`;
      host.dataset.layoutError = err.message;
      return false;
    }
    if (mine !== generation || destroyed) return false;
    // Regions side by side only when they fit the view's width at full size; else stacked.
    const nextGeo = result.geo || SN.geometry(result.laid, result.across, ix, viewport.clientWidth - 24);
    open = nextOpen; boxOf = result.nextBoxOf; geo = nextGeo; lastEngine = result.engine;
    layoutKey = openKey(open) + result.engine;
    if (selections === selectionsBefore) selected = nextSelected;
    SN.drawPicture(layer, ix, geo, colours());
    const first = host.dataset.drawn !== "1";
    sizeViewport();
    if (first) fit(false);
    const now = keep && screenOf(boxOf(keep));
    if (anchor && now) { view.tx += anchor.x - now.x; view.ty += anchor.y - now.y; }
    applyView();
    markSelection(); markMatches(); legend();
    SN.card(cardHost, ix, selected, overlay, cardActions);
    const ms = Math.round(performance.now() - started);
    status.textContent = `${geo.boxes.size} boxes \u00b7 ${result.engine} \u00b7 ${ms} ms` +
      (result.why ? ` (ELK: ${result.why})` : "");
    host.dataset.drawn = "1"; host.dataset.engine = result.engine; host.dataset.drawMs = String(ms);
    if (result.why) host.dataset.layoutError = result.why; else delete host.dataset.layoutError;
    report();
    return true;
  }

  const colours = () => (overlay ? SN.colouring(ix, overlay, boxOf, geo) : null);
  const legend = () => {
    const o = overlay && options.model.overlays[overlay], c = o && colours();
    SN.legend(legendHost, o, c ? c.scale : null, o ? SN.extremes(ix, overlay) : null, overlay);
  };

  // -- selection, groups, search --------------------------------------------------------------
  const boxElement = (id) => layer.querySelector(`g.symnb-node[data-id="${CSS.escape(id)}"]`);
  function markSelection() {
    layer.querySelectorAll(".symnb-selected, .symnb-feeds").forEach((n) => n.classList.remove("symnb-selected", "symnb-feeds"));
    if (!selected) return;
    const box = boxOf(selected);
    const node = boxElement(box) || layer.querySelector(`g.symnb-frame[data-group="${CSS.escape(box)}"]`);
    if (node) node.classList.add("symnb-selected");
    layer.querySelectorAll(`g.symnb-edge[data-target="${CSS.escape(box)}"]`).forEach((e) => {
      e.classList.add("symnb-feeds");
      const src = boxElement(e.dataset.source);
      if (src) src.classList.add("symnb-feeds");
    });
  }
  function select(id) {
    selections += 1;
    selected = id;
    markSelection();
    SN.card(cardHost, ix, selected, overlay, cardActions);
    report();
  }
  const isOpen = (g) => open.has(g);
  function closeIn(set, g) {  // a group closes with the groups inside it
    set.delete(g);
    for (const other of [...set]) if (SN.ancestors(ix, other).includes(g)) set.delete(other);
  }
  function toggle(g) {
    const next = new Set(open);
    const opening = !next.has(g);
    if (opening) next.add(g); else closeIn(next, g);
    return show(next, selected || g, selected || g).then((ok) => { if (ok && opening) bringIntoView(g); return ok; });
  }
  // What an open drew (the group's frame, or the box it became part of) into the view,
  // moved the least: whole when it fits the view (zoomed out to no less than the text's
  // full size when the user had zoomed in), else its title row and top left corner (the
  // selection stays where it was when that already shows).
  function bringIntoView(id) {
    const r = geo && (geo.frames.get(id) || geo.boxes.get(boxOf(id)));
    if (!r) return;
    const W = viewport.clientWidth, H = viewport.clientHeight, pad = 12;
    const need = Math.min((W - 2 * pad) / r.w, (H - 2 * pad) / r.h);
    if (need < view.scale && view.scale > 1) {  // zoomed in: back towards full size, about its corner
      const s = Math.max(need, 1), x = view.tx + r.x * view.scale, y = view.ty + r.y * view.scale;
      view.tx = x - r.x * s; view.ty = y - r.y * s; view.scale = s;
    }
    const s = view.scale;
    const axis = (start, size, room, at) => {  // the shift along one axis
      const lo = at + start * s, hi = lo + size * s;
      if (size * s <= room - 2 * pad) return hi > room - pad ? room - pad - hi : lo < pad ? pad - lo : 0;
      return lo < pad || lo > room - 80 ? pad - lo : 0;  // bigger than the view: its start shows
    };
    view.tx += axis(r.x, r.w, W, view.tx);
    view.ty += axis(r.y, r.h, H, view.ty);
    applyView();
  }
  // The Python API's command: its groups opened and closed, the user's others kept.
  function changeOpen(add, remove, sel) {
    const next = new Set(open);
    add.filter((g) => ix.groups.has(g)).forEach((g) => next.add(g));
    remove.forEach((g) => closeIn(next, g));
    return show(next, sel === undefined ? selected : sel, null);
  }
  function reveal(id) {  // open the groups around `id`, select it, bring it into view
    const next = new Set(open);
    SN.ancestors(ix, id).forEach((g) => next.add(g));
    for (let i = 0; i < 8; i++) {  // a parameter drawn inside the group it feeds: open that too
      const b = SN.boxMap(ix, next).boxOf(id);
      if (b === id || !ix.groups.has(b) || next.has(b)) break;
      next.add(b);
      SN.ancestors(ix, b).forEach((g) => next.add(g));
    }
    return show(next, id, null).then((ok) => { if (ok) centreOn(id); return ok; });
  }
  function centreOn(id) {
    const r = geo && (geo.boxes.get(boxOf(id)) || geo.frames.get(id));
    if (!r) return;
    view.tx = viewport.clientWidth / 2 - (r.x + r.w / 2) * view.scale;
    view.ty = viewport.clientHeight / 2 - (r.y + r.h / 2) * view.scale;
    applyView();
  }

  let matches = [], matchIndex = -1, searchTimer = null;
  function runSearch() {
    const t0 = performance.now();
    matches = SN.search(ix, search.value);
    matchIndex = -1;
    markMatches();
    host.dataset.searchMs = (performance.now() - t0).toFixed(2);
  }
  function markMatches() {
    const query = search.value.trim();
    const marked = new Set(matches.map((id) => boxOf(id)));
    layer.querySelectorAll("g.symnb-node").forEach((n) => {
      n.classList.toggle("symnb-match", marked.has(n.dataset.id));
      n.classList.toggle("symnb-dim", query !== "" && !marked.has(n.dataset.id));
    });
    hits.replaceChildren();
    if (!query) { found.textContent = ""; return; }
    const hidden = matches.filter((id) => boxOf(id) !== id).length;
    found.textContent = matches.length
      ? `${matchIndex >= 0 ? matchIndex + 1 : "-"} of ${matches.length}` + (hidden ? ` (${hidden} in closed groups)` : "")
      : "no match";
    for (const id of matches.slice(0, 8)) {
      const item = ix.nodes.get(id) || ix.groups.get(id) || {};
      const where = SN.ancestors(ix, id).map((g) => ix.groups.get(g).label).join(" \u203a ");
      const link = SN.el("button", "symnb-hit", `${item.label || id}${where ? "  in " + where : ""}`);
      link.dataset.id = id;
      hits.append(link);
    }
  }
  function nextMatch() {
    if (!matches.length) return;
    matchIndex = (matchIndex + 1) % matches.length;
    reveal(matches[matchIndex]).then(markMatches);
  }

  const cardActions = {
    isOpen, toggle: (g) => toggle(g), select: (id) => reveal(id),
    details: (id, into) => {
      if (options.details) { options.details(id, into); return; }
      const node = ix.nodes.get(id);
      if (!node) return;
      // Past the saved budget a node's summary and source line were left out: say so here,
      // where the user looks for them, not only in the view's footer.
      const trimmed = (options.model.not_saved || []).length && node.summary == null && node.code == null;
      if (trimmed) into.append(SN.el("div", "symnb-card-note symnb-card-not-saved",
        "value summary and source line: not saved (past the notebook's size budget)"));
      into.append(SN.el("div", "symnb-card-note", "heatmaps and whole arrays come from a live kernel (not saved)"));
    },
  };

  // -- events --------------------------------------------------------------------------------
  // Panning listens on the window only while the button is down: a view removed from the
  // page without destroy() (a saved output JupyterLab drops) leaves no listener behind.
  let drag = null, dragged = false;
  const dragMove = (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 4) dragged = true;
    if (dragged) { view.tx = drag.tx + dx; view.ty = drag.ty + dy; applyView(); }
  };
  const dragEnd = () => {
    drag = null;
    window.removeEventListener("mousemove", dragMove);
    window.removeEventListener("mouseup", dragEnd);
  };
  disposers.push(dragEnd);
  on(viewport, "mousedown", (e) => {
    if (e.target === mini) return;
    drag = { x: e.clientX, y: e.clientY, tx: view.tx, ty: view.ty }; dragged = false;
    window.addEventListener("mousemove", dragMove);
    window.addEventListener("mouseup", dragEnd);
  });
  on(viewport, "click", (e) => {
    if (dragged) { dragged = false; return; }
    const box = e.target.closest && e.target.closest("g.symnb-node");
    if (box) {
      const id = box.dataset.id;
      if (ix.groups.has(id) && (e.detail > 1 || selected === id)) toggle(id); else select(id);
      return;
    }
    const title = e.target.closest && e.target.closest(".symnb-frame-title");
    if (title) toggle(title.parentNode.dataset.group);
  });
  on(viewport, "dblclick", (e) => e.preventDefault());
  on(viewport, "wheel", (e) => {
    if (!e.ctrlKey && !e.metaKey) return;  // a plain wheel scrolls the notebook
    e.preventDefault();
    zoomAt(e.deltaY < 0 ? 1.2 : 1 / 1.2, e.offsetX, e.offsetY);
  }, { passive: false });
  const zoomAt = (factor, x, y) => {
    const s = Math.min(Math.max(view.scale * factor, 0.05), 4);
    view.tx = x - (x - view.tx) * (s / view.scale); view.ty = y - (y - view.ty) * (s / view.scale);
    view.scale = s; applyView();
  };
  on(zoomIn, "click", () => zoomAt(1.25, viewport.clientWidth / 2, viewport.clientHeight / 2));
  on(zoomOut, "click", () => zoomAt(0.8, viewport.clientWidth / 2, viewport.clientHeight / 2));
  on(fitButton, "click", () => fit());
  on(mapButton, "click", () => { mapShown = !mapShown; applyView(); });
  on(cardButton, "click", () => { cardShown = !cardShown; applyView(); });
  const miniMove = (e) => {
    if (!geo || !(e.buttons & 1) && e.type !== "click") return;
    const s = Math.min(mini.width / geo.width, mini.height / geo.height);
    const r = mini.getBoundingClientRect();
    const x = (e.clientX - r.left) * (mini.width / r.width) / s, y = (e.clientY - r.top) * (mini.height / r.height) / s;
    view.tx = viewport.clientWidth / 2 - x * view.scale; view.ty = viewport.clientHeight / 2 - y * view.scale;
    applyView();
    e.stopPropagation();
  };
  on(mini, "mousedown", miniMove); on(mini, "mousemove", miniMove); on(mini, "click", (e) => e.stopPropagation());
  on(search, "input", () => { if (searchTimer) cancel(searchTimer); searchTimer = later(runSearch, 60); });
  on(search, "keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    if (searchTimer) { cancel(searchTimer); searchTimer = null; runSearch(); }
    nextMatch();
  });
  on(hits, "click", (e) => { const b = e.target.closest(".symnb-hit"); if (b) reveal(b.dataset.id); });
  on(legendHost, "click", (e) => { const b = e.target.closest(".symnb-legend-link"); if (b) reveal(b.dataset.id); });
  on(overlayMenu, "change", () => {
    overlay = overlayMenu.value;
    SN.drawPicture(layer, ix, geo, colours());
    markSelection(); markMatches(); legend();
    SN.card(cardHost, ix, selected, overlay, cardActions);
    report();
  });

  let destroyed = false;
  const first = show(open, selected, null).then((ok) => {
    if (ok && selected) centreOnIfHidden();
    if (elk) later(() => elk.warmUp(IDLE_WARM_UPS, 40), 0);  // before the user's first click
    return ok;
  });
  function centreOnIfHidden() {
    const p = screenOf(boxOf(selected));
    if (p && (p.x < 0 || p.y < 0 || p.x > viewport.clientWidth || p.y > viewport.clientHeight)) centreOn(selected);
  }
  return {
    ready: first,
    view: {  // for tests, benches and the Python-driven commands
      open: (g) => (open.has(g) ? Promise.resolve(true) : toggle(g)),
      close: (g) => (open.has(g) ? toggle(g) : Promise.resolve(true)),
      reveal, select, fit: () => fit(), bringIntoView, zoomAt: (f, x, y) => zoomAt(f, x, y),
      transform: () => ({ ...view }),
      changeOpen,
      state: () => ({ open: [...open], selected, overlay }),
      index: () => ix,
      geometry: () => geo, boxOf: (id) => boxOf(id),
      failLayout: (mode) => { options.failLayout = mode; },
    },
    destroy() {
      destroyed = true;
      generation += 1;
      disposers.forEach((d) => d());
      timers.forEach((t) => clearTimeout(t));
      timers.clear();
      if (elk) elk.stop();
      host.replaceChildren();
      host.classList.remove("symnb-viewer");
    },
  };
};
