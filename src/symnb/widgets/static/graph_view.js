// symnb's graph explorer (an anywidget front end).
//
// Python draws the picture (the same SVG the saved snapshot shows) and the details of
// the selected node; this module adds what needs a browser: clicking a node, searching,
// zooming and panning, opening a group by clicking its box (closing it by its frame's
// title), and the buttons that open inner graphs or collapse a node's inputs (Python
// redraws the picture then). While this view is alive it hides its own
// static snapshot, which the notebook keeps for when no kernel is there.

const ZOOM_STEP = 1.25;
const READABLE_ZOOM = 0.6;  // the smallest zoom a picture opens at (12 px text at 7 px)
// The details panel's buttons: which list of ids each changes, and whether it adds.
const ACTIONS = {
  expand: ["expanded", true], close: ["expanded", false],
  collapse: ["collapsed", true], uncollapse: ["collapsed", false],
  "open-group": ["opened", true], "close-group": ["opened", false],
};

function hideSnapshot(key) {
  const id = `symnb-live-${key}`;
  if (!key || document.getElementById(id)) return;
  const style = document.createElement("style");
  style.id = id;
  style.textContent = `.symnb-snapshot[data-symnb-key="${key}"] { display: none !important; }`;
  document.head.appendChild(style);
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function render({ model, el }) {
  hideSnapshot(model.get("snapshot_key"));
  el.classList.add("symnb-explorer");

  const toolbar = element("div", "symnb-toolbar");
  const search = element("input", "symnb-search");
  search.type = "search";
  search.placeholder = "search nodes (name or op), Enter: next";
  const found = element("span", "symnb-found", "");
  const buttons = {};
  for (const [name, text, title] of [
    ["out", "\u2212", "zoom out"], ["in", "+", "zoom in"], ["fit", "fit", "fit the whole graph in the box"],
  ]) {
    buttons[name] = element("button", "symnb-button", text);
    buttons[name].title = title;
  }
  const status = element("span", "symnb-status", "");
  toolbar.append(search, found, buttons.out, buttons.in, buttons.fit, status);

  const header = element("div", "symnb-header");
  const body = element("div", "symnb-body");
  const viewport = element("div", "symnb-viewport");
  const details = element("div", "symnb-details");
  const footer = element("div", "symnb-footer");
  body.append(viewport, details);
  el.append(header, toolbar, body, footer);

  let zoom = 1;
  let natural = { width: 1, height: 1 };
  let matchIndex = -1;
  let enterPending = false;  // Enter pressed before Python answered the query
  let reveal = null;  // a search hit inside closed groups: scrolled to once Python drew it

  function svg() { return viewport.querySelector("svg.symnb-graph"); }
  function nodeElement(id) { return viewport.querySelector(`g.symnb-node[data-id="${CSS.escape(id)}"]`); }

  function applyZoom() {
    const picture = svg();
    if (!picture) return;
    picture.setAttribute("width", String(Math.max(natural.width * zoom, 40)));
    picture.setAttribute("height", String(Math.max(natural.height * zoom, 20)));
    picture.style.maxWidth = "none";
  }

  // The box grows with the picture up to its CSS max-height (then scrolls); the user may
  // resize it. "fit" fits the whole picture, width and height, in the largest box.
  function boxHeight() {
    const limit = parseFloat(getComputedStyle(viewport).maxHeight);
    return viewport.style.height ? viewport.clientHeight : (Number.isFinite(limit) ? limit : 560);
  }

  function fit(floor = 0) {
    const width = Math.max(viewport.clientWidth - 16, 200);
    const height = Math.max(boxHeight() - 16, 120);
    zoom = Math.max(Math.min(1, width / natural.width, height / natural.height), floor);
    applyZoom();
  }

  function drawPicture() {
    const started = performance.now();
    viewport.innerHTML = model.get("svg");
    const picture = svg();
    if (picture) {
      const box = picture.viewBox.baseVal;
      natural = { width: box.width || 1, height: box.height || 1 };
      applyZoom();
    }
    markSelection();
    markMatches();
    showOpened();
    const hit = reveal && nodeElement(reveal);
    if (hit) { scrollTo(hit); reveal = null; }
    status.textContent = model.get("status");
    el.dataset.drawMs = String(Math.round(performance.now() - started));
    el.dataset.nodes = picture ? picture.dataset.nodes : "0";
  }

  function markSelection() {
    viewport.querySelectorAll(".symnb-selected, .symnb-feeds").forEach((n) =>
      n.classList.remove("symnb-selected", "symnb-feeds"));
    const selected = model.get("selected");
    if (!selected) return;
    const node = nodeElement(selected);
    if (node) node.classList.add("symnb-selected");
    viewport.querySelectorAll(`g.symnb-edge[data-target="${CSS.escape(selected)}"]`).forEach((edge) => {
      edge.classList.add("symnb-feeds");
      const source = nodeElement(edge.dataset.source);
      if (source) source.classList.add("symnb-feeds");
    });
  }

  function select(id) {
    model.set("selected", id);
    model.save_changes();
    markSelection();
  }

  // A group just opened (by a click or from Python) is shown, not the picture's middle:
  // zoomed to fit its frame, but no smaller than READABLE_ZOOM (a tall gradient stays
  // readable), scrolled so its title and first rows are in sight.
  function showOpened() {
    const frame = focus && viewport.querySelector(`g.symnb-frame[data-group="${CSS.escape(focus)}"]`);
    if (!frame) return;
    focus = null;
    const box = frame.getBBox();
    const width = Math.max(viewport.clientWidth - 16, 200), height = Math.max(boxHeight() - 16, 120);
    zoom = Math.max(Math.min(1, width / box.width, height / box.height), READABLE_ZOOM);
    applyZoom();
    const left = box.width * zoom > width ? box.x * zoom - 8 : (box.x + box.width / 2) * zoom - viewport.clientWidth / 2;
    const top = box.height * zoom > height ? box.y * zoom - 8 : (box.y + box.height / 2) * zoom - viewport.clientHeight / 2;
    viewport.scrollTo({ left: Math.max(left, 0), top: Math.max(top, 0) });
  }

  function scrollTo(node) {
    const box = node.getBBox();
    const left = (box.x + box.width / 2) * zoom - viewport.clientWidth / 2;
    const top = (box.y + box.height / 2) * zoom - viewport.clientHeight / 2;
    viewport.scrollTo({ left: Math.max(left, 0), top: Math.max(top, 0) });
  }

  // Python searches the whole graph (nodes inside closed groups too): "matches" are the
  // hits' ids, "match_boxes" the box drawing each now (its own, its closed group's, or the
  // top-level node whose inner graph holds it).
  function markMatches() {
    const query = search.value.trim();
    const hits = model.get("matches"), boxes = model.get("match_boxes");
    const marked = new Set(boxes);
    viewport.querySelectorAll("g.symnb-node").forEach((node) => {
      const hit = marked.has(node.dataset.id);
      node.classList.toggle("symnb-match", hit);
      node.classList.toggle("symnb-dim", query !== "" && !hit);
    });
    if (!query) { found.textContent = ""; return; }
    const inside = hits.filter((id, i) => boxes[i] !== id).length;
    found.textContent = hits.length
      ? `${matchIndex >= 0 ? matchIndex + 1 : "-"} of ${hits.length}` + (inside ? ` (${inside} in closed groups or inner graphs)` : "")
      : "no match";
  }

  function nextMatch() {
    const hits = model.get("matches");
    if (!hits.length) return;
    matchIndex = (matchIndex + 1) % hits.length;
    const id = hits[matchIndex];
    const node = nodeElement(id);
    if (node) scrollTo(node); else reveal = id;  // Python opens its groups and redraws
    select(id);
    markMatches();
  }

  // A group's box opens on a click; an open group's title closes it (Python redraws).
  let focus = null;  // the group just opened: brought into view once redrawn
  function setGroup(id, open) {
    focus = open ? id : null;
    const current = model.get("opened").filter((g) => g !== id);
    model.set("opened", open ? current.concat([id]) : current);
    model.save_changes();
  }

  viewport.addEventListener("click", (event) => {
    if (viewport.dataset.dragged === "1") return;
    const node = event.target.closest("g.symnb-node");
    if (node) {
      event.stopPropagation();
      select(node.dataset.id);
      if (node.classList.contains("symnb-group")) setGroup(node.dataset.id, true);
      return;
    }
    const title = event.target.closest(".symnb-frame-title");
    if (title) setGroup(title.closest("g.symnb-frame").dataset.group, false);
  });

  // Drag to pan (the viewport scrolls); a drag does not count as a click.
  let drag = null;
  viewport.addEventListener("mousedown", (event) => {
    drag = { x: event.clientX, y: event.clientY, left: viewport.scrollLeft, top: viewport.scrollTop };
    viewport.dataset.dragged = "0";
  });
  window.addEventListener("mousemove", (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 4) viewport.dataset.dragged = "1";
    viewport.scrollLeft = drag.left - dx;
    viewport.scrollTop = drag.top - dy;
  });
  window.addEventListener("mouseup", () => { drag = null; });
  viewport.addEventListener("wheel", (event) => {
    if (!event.ctrlKey) return;  // plain wheel scrolls; ctrl + wheel zooms
    event.preventDefault();
    zoom *= event.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP;
    applyZoom();
  }, { passive: false });

  buttons.in.addEventListener("click", () => { zoom *= ZOOM_STEP; applyZoom(); });
  buttons.out.addEventListener("click", () => { zoom /= ZOOM_STEP; applyZoom(); });
  buttons.fit.addEventListener("click", () => fit());
  search.addEventListener("input", () => {
    matchIndex = -1;
    model.set("query", search.value);
    model.save_changes();
  });
  search.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    // Enter right after typing: Python's hits for this text may not be here yet.
    if (model.get("answered") === search.value) nextMatch(); else enterPending = true;
  });

  // The details panel's buttons (drawn by Python) toggle a node's expansion or collapse.
  details.addEventListener("click", (event) => {
    const button = event.target.closest("[data-action]");
    if (!button) return;
    const { action, node } = button.dataset;
    if (action === "compute") { model.send({ compute: node }); return; }  // Python computes, resends
    const [key, add] = ACTIONS[action];
    const current = model.get(key).filter((id) => id !== node);
    model.set(key, add ? current.concat([node]) : current);
    model.save_changes();
  });

  function showDetails() { details.innerHTML = model.get("details"); }
  function showFrames() {
    header.innerHTML = model.get("header");
    footer.innerHTML = model.get("footer");
  }

  model.on("change:svg", drawPicture);
  let openedBefore = new Set(model.get("opened"));
  model.on("change:opened", () => {  // Python's open() too: its group is the one to show
    const now = model.get("opened");
    const added = now.filter((g) => !openedBefore.has(g));
    openedBefore = new Set(now);
    if (added.length) { focus = added[added.length - 1]; showOpened(); }
  });
  model.on("change:details", showDetails);
  model.on("change:selected", markSelection);
  model.on("change:match_boxes", markMatches);
  model.on("change:answered", () => {
    markMatches();
    if (enterPending && model.get("answered") === search.value) { enterPending = false; nextMatch(); }
  });
  model.on("change:status", () => { status.textContent = model.get("status"); });
  model.on("change:header", showFrames);
  model.on("change:footer", showFrames);
  showFrames();
  drawPicture();
  showDetails();
  // A picture larger than the box opens fitted to it, but no smaller than READABLE_ZOOM:
  // fitted whole, a big graph's 12 px labels shrank to 3 px (scroll to see the rest;
  // "fit" shows it all).
  requestAnimationFrame(() => {
    if (natural.width * zoom > viewport.clientWidth || natural.height * zoom > boxHeight()) fit(READABLE_ZOOM);
  });
}

export default { render };
