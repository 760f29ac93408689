// symnb viewer, part 8 of 12: rendering, state + model -> SVG and DOM. Given the view's
// state (part 6) and a drawn geometry, draws the picture (coloured by the overlay), marks
// the selection, what feeds it and the search's matches, and fills the legend, the search
// hits, the card and the status line (each drawn by part 4's functions). Reads the state,
// never changes it.

SN.Renderer = class Renderer {
  constructor(page, host, ix, model, camera) {
    this.page = page;
    this.host = host;
    this.ix = ix;
    this.model = model;
    this.camera = camera;
    this.geo = null;  // the geometry drawn
    this.boxOf = null;  // model id -> the box showing it, for the open groups drawn
  }

  // The box or frame drawing `id` (the box it is part of when its group is closed).
  rectOf(id) {
    return this.geo && (this.geo.boxes.get(this.boxOf(id)) || this.geo.frames.get(id));
  }

  // The box (or the open group's frame) with this id: what screen positions are taken of.
  boxRect(box) {
    return this.geo && box ? this.geo.boxes.get(box) || this.geo.frames.get(box) : null;
  }

  // Where the box showing `id` stands on the screen (null: not drawn).
  screenOf(id) {
    return this.geo && id ? this.camera.screenOf(this.boxRect(this.boxOf(id))) : null;
  }

  // The frame an opened group drew, or the box it became part of.
  openedRect(id) {
    return this.geo && (this.geo.frames.get(id) || this.geo.boxes.get(this.boxOf(id)));
  }

  colours(state) {
    return state.overlay ? SN.colouring(this.ix, state.overlay, this.boxOf, this.geo) : null;
  }

  // The picture and everything drawn over and beside it.
  picture(state, actions) {
    SN.drawPicture(this.page.layer, this.ix, this.geo, this.colours(state));
    this.marks(state, actions);
  }

  marks(state, actions) {
    this.selection(state);
    this.matches(state);
    this.legend(state);
    this.card(state, actions);
  }

  legend(state) {
    const o = state.overlay && this.model.overlays[state.overlay], c = o && this.colours(state);
    SN.legend(this.page.legendHost, o, c ? c.scale : null, o ? SN.extremes(this.ix, state.overlay) : null, state.overlay);
  }

  card(state, actions) {
    SN.card(this.page.cardHost, this.ix, state.selected, state.overlay, actions);
  }

  boxElement(id) {
    return this.page.layer.querySelector(`g.symnb-node[data-id="${CSS.escape(id)}"]`);
  }

  // The selected box (or frame) and the boxes whose edges feed it.
  selection(state) {
    const layer = this.page.layer;
    layer.querySelectorAll(".symnb-selected, .symnb-feeds").forEach((n) => n.classList.remove("symnb-selected", "symnb-feeds"));
    if (!state.selected) return;
    const box = this.boxOf(state.selected);
    const node = this.boxElement(box) || layer.querySelector(`g.symnb-frame[data-group="${CSS.escape(box)}"]`);
    if (node) node.classList.add("symnb-selected");
    layer.querySelectorAll(`g.symnb-edge[data-target="${CSS.escape(box)}"]`).forEach((e) => {
      e.classList.add("symnb-feeds");
      const src = this.boxElement(e.dataset.source);
      if (src) src.classList.add("symnb-feeds");
    });
  }

  // The search's matches marked (the rest dimmed), counted, and the first listed as links.
  matches(state) {
    const { search, found, hits, layer } = this.page, ix = this.ix;
    const { matches, index } = state.search;
    const query = search.value.trim();
    const marked = new Set(matches.map((id) => this.boxOf(id)));
    layer.querySelectorAll("g.symnb-node").forEach((n) => {
      n.classList.toggle("symnb-match", marked.has(n.dataset.id));
      n.classList.toggle("symnb-dim", query !== "" && !marked.has(n.dataset.id));
    });
    hits.replaceChildren();
    if (!query) { found.textContent = ""; return; }
    const hidden = matches.filter((id) => this.boxOf(id) !== id).length;
    found.textContent = matches.length
      ? `${index >= 0 ? index + 1 : "-"} of ${matches.length}` + (hidden ? ` (${hidden} in closed groups)` : "")
      : "no match";
    for (const id of matches.slice(0, 8)) {
      const item = ix.nodes.get(id) || ix.groups.get(id) || {};
      const where = SN.ancestors(ix, id).map((g) => ix.groups.get(g).label).join(" \u203a ");
      const link = SN.el("button", "symnb-hit", `${item.label || id}${where ? "  in " + where : ""}`);
      link.dataset.id = id;
      hits.append(link);
    }
  }

  // A layout drawn: `result` (SN.Arranger's) in the view, the camera fitting the first one
  // and keeping the box at `anchor` (a screen point) where it was.
  draw(result, state, actions, keep, anchor, started) {
    const { host, camera } = this, status = this.page.status;
    camera.geo = this.geo;
    SN.drawPicture(this.page.layer, this.ix, this.geo, this.colours(state));
    const first = host.dataset.drawn !== "1";
    camera.sizeViewport();
    if (first) camera.fit(false);
    camera.keep(anchor, keep && this.screenOf(keep));
    camera.apply();
    this.marks(state, actions);
    const ms = Math.round(performance.now() - started);
    status.textContent = `${this.geo.boxes.size} boxes \u00b7 ${result.engine} \u00b7 ${ms} ms` +
      (result.why ? ` (ELK: ${result.why})` : "");
    host.dataset.drawn = "1"; host.dataset.engine = result.engine; host.dataset.drawMs = String(ms);
    if (result.why) host.dataset.layoutError = result.why; else delete host.dataset.layoutError;
  }
};
