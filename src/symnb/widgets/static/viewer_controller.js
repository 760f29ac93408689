// symnb viewer, part 10 of 12: the controller. What the user and the Python API ask for
// (open, close, select, reveal, search, overlay; the events of part 11 and the kernel's
// commands through SN.mount's `view`) becomes a change of the state (part 6): a new set of
// open groups is laid out (part 9) and drawn (part 8), and the state changes only if it
// drew. After each change the state goes out once through `onState` (the live view saves
// it, debounced; never while nothing the user chose changed).

SN.Controller = class Controller {
  constructor({ ix, model, options, state, renderer, camera, arranger, page, host, later, cancel }) {
    Object.assign(this, { ix, model, options, state, renderer, camera, arranger, page, host, later, cancel });
    this.generation = 0;  // counts the layouts asked for: only the latest one draws
    this.destroyed = false;
    this.searchTimer = null;
    // What the card's buttons and links do (part 4's SN.card calls these).
    this.actions = {
      isOpen: (g) => this.state.open.has(g),
      toggle: (g) => this.toggle(g),
      select: (id) => this.reveal(id),
      details: (id, into) => this.details(id, into),
    };
  }

  // The state out, when it changed since it last went out.
  report() {
    const saved = this.state.changed(this.renderer.geo);
    if (saved && this.options.onState) this.options.onState(saved);
  }

  // Lay out and draw `nextOpen`; the state (open groups, selection) changes only if it drew.
  // `keep`: the id whose box stays where it is on the screen.
  async show(nextOpen, nextSelected, keep) {
    const { state, renderer, page, host } = this;
    const mine = ++this.generation;
    const selectionsBefore = state.selections;
    const started = performance.now();
    const anchor = keep && renderer.screenOf(keep);
    page.status.textContent = "laying out\u2026";
    let result;
    try {
      result = await this.arranger.layoutFor(nextOpen);
    } catch (err) {
      if (mine !== this.generation) return false;
      page.status.textContent = `${err.message}: the previous view is kept`;
      host.dataset.layoutError = err.message;
      return false;
    }
    if (mine !== this.generation || this.destroyed) return false;
    // Regions side by side only when they fit the view's width at full size; else stacked.
    renderer.geo = result.geo || SN.geometry(result.laid, result.across, this.ix, page.viewport.clientWidth - 24);
    renderer.boxOf = result.nextBoxOf;
    state.drew(nextOpen, result.engine, nextSelected, selectionsBefore);
    renderer.draw(result, state, this.actions, keep, anchor, started);
    this.report();
    return true;
  }

  select(id) {
    this.state.select(id);
    this.renderer.selection(this.state);
    this.renderer.card(this.state, this.actions);
    this.report();
  }

  // Opens or closes `g` (a group closes with the groups inside it); what an open drew comes
  // into view.
  toggle(g) {
    const { next, opening } = this.state.toggled(g);
    const selected = this.state.selected;
    return this.show(next, selected || g, selected || g).then((ok) => { if (ok && opening) this.bringIntoView(g); return ok; });
  }

  // What an open drew (the group's frame, or the box it became part of) into the view.
  bringIntoView(id) {
    this.camera.bringIntoView(this.renderer.openedRect(id));
  }

  // The Python API's command: its groups opened and closed, the user's others kept.
  changeOpen(add, remove, sel) {
    return this.show(this.state.commanded(add, remove), sel === undefined ? this.state.selected : sel, null);
  }

  // Opens the groups around `id`, selects it and brings it into view.
  reveal(id) {
    return this.show(this.state.revealing(id), id, null).then((ok) => { if (ok) this.centreOn(id); return ok; });
  }

  centreOn(id) {
    this.camera.centreOn(this.renderer.rectOf(id));
  }

  // The first draw's selection, centred when it landed off screen.
  centreOnIfHidden() {
    if (this.camera.offScreen(this.renderer.screenOf(this.state.selected))) this.centreOn(this.state.selected);
  }

  runSearch() {
    const t0 = performance.now();
    this.state.search = { matches: SN.search(this.ix, this.page.search.value), index: -1 };
    this.renderer.matches(this.state);
    this.host.dataset.searchMs = (performance.now() - t0).toFixed(2);
  }

  // The search box typed in: searched once typing pauses.
  searchSoon() {
    if (this.searchTimer) this.cancel(this.searchTimer);
    this.searchTimer = this.later(() => this.runSearch(), 60);
  }

  // Enter in the search box: the search run now if pending, then the next match revealed.
  nextMatch() {
    if (this.searchTimer) { this.cancel(this.searchTimer); this.searchTimer = null; this.runSearch(); }
    const search = this.state.search;
    if (!search.matches.length) return;
    search.index = (search.index + 1) % search.matches.length;
    this.reveal(search.matches[search.index]).then(() => this.renderer.matches(this.state));
  }

  setOverlay(name) {
    this.state.overlay = name;
    this.renderer.picture(this.state, this.actions);
    this.report();
  }

  // The card's kernel part: the live kernel's (options.details), else what a saved view lacks.
  details(id, into) {
    if (this.options.details) { this.options.details(id, into); return; }
    const node = this.ix.nodes.get(id);
    if (!node) return;
    // Past the saved budget a node's summary and source line were left out: say so here,
    // where the user looks for them, not only in the view's footer.
    const trimmed = (this.model.not_saved || []).length && node.summary == null && node.code == null;
    if (trimmed) into.append(SN.el("div", "symnb-card-note symnb-card-not-saved",
      "value summary and source line: not saved (past the notebook's size budget)"));
    into.append(SN.el("div", "symnb-card-note", "heatmaps and whole arrays come from a live kernel (not saved)"));
  }
};
