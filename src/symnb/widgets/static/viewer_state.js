// symnb viewer, part 6 of 12: the view's state, as data, in model ids. What is open,
// selected and overlaid, and the search's matches: what a view starts from (the saved or
// live state, else the model's own defaults, kept to what the model holds), the changes
// the user and the Python API ask for (new sets of open groups, made here and applied by
// the controller, part 10, only after they drew), and the state's saved form (with the
// drawn layout, which a view started from it draws again: the saved view opens at the
// live view's positions). No DOM here.

const SAVED_LAYOUT_BOXES = 150;  // a bigger layout is not kept in the state: about 400 bytes a box (77 boxes: 31 kB) in each saved notebook

// A set of open groups as a key (the same groups, in any order: the same key).
SN.openKey = (set) => JSON.stringify([...set].sort());

// {open: Set, selected, overlay, layout}: `state` ({open, selected, overlay, layout}, any
// of them missing) read against the model: unknown groups, nodes and overlays dropped.
SN.startState = function startState(ix, model, state) {
  const start = state || {};
  const overlays = model.overlays || {};
  return {
    open: new Set((start.open || model.open || []).filter((g) => ix.groups.has(g))),
    selected: start.selected && (ix.nodes.has(start.selected) || ix.groups.has(start.selected)) ? start.selected : "",
    overlay: start.overlay && overlays[start.overlay] ? start.overlay : "",
    layout: start.layout && Array.isArray(start.layout.open) && start.layout.geometry ? start.layout : null,
  };
};

// The saved layout's geometry when it draws these open groups: the same groups, the same
// boxes (the region graphs `graphs` about to be laid out); else null.
SN.storedGeometry = function storedGeometry(stored, nextOpen, graphs) {
  if (!stored || SN.openKey(nextOpen) !== SN.openKey(stored.open)) return null;
  const ids = new Set(), walk = (n) => (n.children || []).forEach((c) => { ids.add(c.id); walk(c); });
  graphs.forEach(walk);
  const g = stored.geometry;
  const drawn = [...Object.keys(g.boxes || {}), ...Object.keys(g.frames || {})];
  if (drawn.length !== ids.size || !drawn.every((id) => ids.has(id))) return null;
  return SN.unpackGeometry(g);
};

SN.ViewState = class ViewState {
  constructor(ix, model, state) {
    const start = SN.startState(ix, model, state);
    this.ix = ix;
    this.open = start.open;
    this.selected = start.selected;
    this.overlay = start.overlay;
    this.stored = start.layout;  // the layout the state was saved with (SN.storedGeometry)
    this.layoutKey = "";  // the open groups and engine of the layout drawn
    // Counts the user's selections: a click made while a layout is on its way wins over the
    // selection that layout was asked with (ELK's late layout would otherwise undo the click).
    this.selections = 0;
    this.search = { matches: [], index: -1 };  // ids matching the search box; the one shown
    this.reported = this.key();
  }

  // What the user chose and what is drawn, as one string: the state goes out only when it
  // changed (a redraw that changes nothing the user chose, a Python command already in
  // force, sends nothing; ELK's layout replacing the simple one goes out, for the saved view).
  key() {
    return JSON.stringify([[...this.open].sort(), this.selected, this.overlay, this.layoutKey]);
  }

  // The state as the page keeps it: {open, selected, overlay}, plain JSON.
  brief() {
    return { open: [...this.open], selected: this.selected, overlay: this.overlay };
  }

  // The saved form: brief() with the drawn layout `geo` while it is small enough to keep.
  saved(geo) {
    const state = this.brief();
    if (geo && geo.boxes.size <= SAVED_LAYOUT_BOXES) state.layout = { open: [...this.open].sort(), geometry: SN.packGeometry(geo) };
    return state;
  }

  // The saved form when the state changed since it was last given out, else null.
  changed(geo) {
    const key = this.key();
    if (key === this.reported) return null;
    this.reported = key;
    return this.saved(geo);
  }

  // A drawn layout's state: its open groups, engine and selection (the selection it was
  // asked with, unless the user selected since it was asked: `selectionsBefore`).
  drew(open, engine, selected, selectionsBefore) {
    this.open = open;
    this.layoutKey = SN.openKey(open) + engine;
    if (this.selections === selectionsBefore) this.selected = selected;
  }

  select(id) {
    this.selections += 1;
    this.selected = id;
  }

  // -- the sets of open groups the controller asks to draw (the state unchanged) -------------

  // `g` opened, or closed with the groups inside it.
  toggled(g) {
    const next = new Set(this.open);
    const opening = !next.has(g);
    if (opening) next.add(g); else this.closeIn(next, g);
    return { next, opening };
  }

  // The Python API's command: its groups opened and closed, the user's others kept.
  commanded(add, remove) {
    const next = new Set(this.open);
    add.filter((g) => this.ix.groups.has(g)).forEach((g) => next.add(g));
    remove.forEach((g) => this.closeIn(next, g));
    return next;
  }

  // The groups around `id` opened, so that it shows as a box of its own.
  revealing(id) {
    const ix = this.ix, next = new Set(this.open);
    SN.ancestors(ix, id).forEach((g) => next.add(g));
    for (let i = 0; i < 8; i++) {  // a parameter drawn inside the group it feeds: open that too
      const b = SN.boxMap(ix, next).boxOf(id);
      if (b === id || !ix.groups.has(b) || next.has(b)) break;
      next.add(b);
      SN.ancestors(ix, b).forEach((g) => next.add(g));
    }
    return next;
  }

  closeIn(set, g) {  // a group closes with the groups inside it
    set.delete(g);
    for (const other of [...set]) if (SN.ancestors(this.ix, other).includes(g)) set.delete(other);
  }
};
