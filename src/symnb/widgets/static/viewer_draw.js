// symnb viewer, part 4 of 12: drawing. Laid-out ELK graphs become SVG built with
// createElementNS and textContent only (a name like `<img onerror=...>` stays text), the
// node card and the overlay legend are DOM built the same way, the minimap is a canvas.

const SVG_NS = "http://www.w3.org/2000/svg";

SN.el = function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
};

SN.svg = function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
};

const REGION_TITLES = { forward: "forward", gradient: "gradient", updates: "updates" };

// The picture: region titles, frames (open groups), edges (those joining two regions in
// their own colour, labelled with their count), boxes.
SN.drawPicture = function drawPicture(layer, ix, geo, colours) {
  layer.replaceChildren();
  for (const r of geo.regions) {
    if (geo.regions.length < 2) break;
    layer.append(SN.svg("text", { class: "symnb-region-title", x: r.x + 12, y: r.y - 6 }, REGION_TITLES[r.region] || r.region));
  }
  for (const [id, f] of geo.frames) {
    const g = SN.svg("g", { class: "symnb-frame", "data-group": id });
    const group = ix.groups.get(id) || {};
    g.append(SN.svg("rect", { class: "symnb-frame-box", x: f.x, y: f.y, width: f.w, height: f.h, rx: 6 }));
    const title = SN.svg("text", { class: "symnb-frame-title", x: f.x + 10, y: f.y + 19 }, SN.clip(String(group.label || id), 60) + "  \u2212");
    title.append(SN.svg("title", {}, "close this group"));
    g.append(title);
    layer.append(g);
  }
  const edgeLayer = SN.svg("g", { class: "symnb-edges" });
  for (const e of geo.edges) {
    if (e.points.length < 2) continue;
    const g = SN.svg("g", { class: "symnb-edge" + (e.across ? " symnb-across" : ""), "data-source": e.src, "data-target": e.dst });
    const d = e.points.map((p, i) => `${i ? "L" : "M"}${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(" ");
    g.append(SN.svg("path", { d, "marker-end": "url(#symnb-arrow)" }));
    for (const l of e.labels) g.append(SN.svg("text", { class: "symnb-edge-label", x: l.x + 2, y: l.y + 12 }, l.text));
    if (e.across) {
      const from = SN.boxText(ix, e.src).title, to = SN.boxText(ix, e.dst).title;
      g.append(SN.svg("title", {}, `${e.count} edge${e.count === 1 ? "" : "s"} from ${from} to ${to} (first: ${e.type})`));
    }
    edgeLayer.append(g);
  }
  layer.append(edgeLayer);
  for (const [id, r] of geo.boxes) {
    const group = ix.groups.get(id);
    const text = SN.boxText(ix, id);
    const cls = ["symnb-node", group ? "symnb-group" : "symnb-op", group && group.series ? "symnb-series" : "",
      ix.nodes.get(id) && ix.nodes.get(id).failing ? "symnb-failing" : ""].filter(Boolean).join(" ");
    const g = SN.svg("g", { class: cls, "data-id": id });
    const fill = colours && colours.fills.get(id);
    const rect = SN.svg("rect", { class: "symnb-box", x: r.x, y: r.y, width: r.w, height: r.h, rx: group ? 6 : 3 });
    if (fill) rect.setAttribute("style", `fill:${fill}`);
    if (fill && SN.isDark(fill)) g.classList.add("symnb-dark");  // white text on the darkest colours
    g.append(rect);
    if (group) g.append(SN.svg("rect", { class: "symnb-box-inner", x: r.x + 3, y: r.y + 3, width: Math.max(r.w - 6, 1), height: Math.max(r.h - 6, 1), rx: 4 }));
    // A share overlay (time share) tags each box with its number: right on its title row
    // when the title leaves room, else at the start of its second line (boxes are sized
    // before any overlay is picked).
    const tag = colours && colours.tags && colours.values.has(id) ? SN.valueText(colours.name, null, colours.values.get(id)) : "";
    const title = SN.clip(text.title), room = Math.floor((r.w - 20) / CHAR);
    const strip = colours && colours.strips.get(id);
    const tagAbove = tag && (title.length + tag.length + 1 <= room || strip);
    g.append(SN.svg("text", { class: "symnb-box-title", x: r.x + 10, y: r.y + 17 },
      tagAbove ? SN.clip(text.title, Math.max(room - tag.length - 1, 2)) : title));
    if (tagAbove) g.append(SN.svg("text", { class: "symnb-share-tag", x: r.x + r.w - 6, y: r.y + 17, "text-anchor": "end" }, tag));
    if (strip) SN.drawStrip(g, r, strip);
    else if (tag && !tagAbove) {
      const sub = SN.svg("text", { class: "symnb-box-sub", x: r.x + 10, y: r.y + 32 });
      sub.append(SN.svg("tspan", { class: "symnb-share-tag" }, tag), document.createTextNode(" " + SN.clip(text.sub, Math.max(room - tag.length - 1, 2))));
      g.append(sub);
    } else g.append(SN.svg("text", { class: "symnb-box-sub", x: r.x + 10, y: r.y + 32 }, SN.clip(text.sub)));
    g.append(SN.svg("title", {}, `${text.title}\n${text.sub}${tag ? "\n" + tag + " of the call" : ""}`));
    layer.append(g);
  }
};

// A closed series' calls as a row of cells in the overlay's colours, in call order; the
// lowest is outlined (the layer whose gradient vanished), each cell names its call.
SN.drawStrip = function drawStrip(g, r, strip) {
  const n = strip.length, left = r.x + 8, width = (r.w - 16) / n;
  const known = strip.filter((c) => c.value !== undefined);
  const lowest = known.length ? known.reduce((a, b) => (b.value < a.value ? b : a)) : null;
  strip.forEach((cell, k) => {
    const rect = SN.svg("rect", { class: "symnb-strip-cell" + (cell === lowest ? " symnb-strip-low" : ""),
      x: left + k * width, y: r.y + 22, width: Math.max(width - 1, 1), height: 12, "data-item": cell.id });
    rect.setAttribute("style", `fill:${cell.colour || "#fff"}`);
    rect.append(SN.svg("title", {}, `${cell.label}: ${cell.value === undefined ? "no value" : SN.number(cell.value)}`));
    g.append(rect);
  });
};

// What an overlay paints: each box's fill, and the strip of each closed series.
SN.colouring = function colouring(ix, name, boxOf, geo) {
  const values = SN.overlayValues(ix, name, boxOf);
  const strips = new Map();
  for (const id of geo ? geo.boxes.keys() : []) {
    const g = ix.groups.get(id);
    if (!g || !g.series) continue;
    const cells = SN.seriesValues(ix, name, id);
    if (cells.some((c) => c.value !== undefined)) strips.set(id, cells);
  }
  const all = new Map(values);
  for (const cells of strips.values()) cells.forEach((c) => { if (c.value !== undefined) all.set(c.id, c.value); });
  // The scale covers every value the legend may name (SN.extremes: nodes inside closed
  // groups too), not only the boxes drawn: the "lowest" it names lies on its bar.
  for (const [id, v] of SN.namedValues(ix, name)) all.set(`node:${id}`, v);
  const scale = SN.colourScale(all);
  if (!scale) return null;
  for (const cells of strips.values()) cells.forEach((c) => { if (c.value !== undefined) c.colour = scale.colour(c.value); });
  return { fills: new Map([...values].map(([id, v]) => [id, scale.colour(v)])), strips, scale, values, name, tags: SN.SHARES.has(name) };
};

SN.arrowDefs = function arrowDefs() {
  const defs = SN.svg("defs");
  const marker = SN.svg("marker", { id: "symnb-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
  marker.append(SN.svg("path", { d: "M0 0 L10 5 L0 10 z", class: "symnb-arrowhead" }));
  defs.append(marker);
  return defs;
};

// Colour scale: white to orange to dark red; log when positive values span 1000x.
SN.colourScale = function colourScale(values) {
  if (!values.size) return null;
  let lo = Infinity, hi = -Infinity;  // a loop: a 50,000-node model's values overflow Math.min(...list)
  for (const v of values.values()) { if (v < lo) lo = v; if (v > hi) hi = v; }
  const log = lo > 0 && hi / lo > 1000;
  const f = (v) => (log ? Math.log10(v) : v);
  const a = f(lo), b = f(hi);
  // All alike (no NaN anywhere: every count 0): the palest colour for 0, the middle one
  // for any other number; nothing stands out when nothing differs.
  const t = (v) => (b > a ? (f(v) - a) / (b - a) : v === 0 ? 0 : 0.5);
  const colour = (v) => {
    const x = Math.min(Math.max(t(v), 0), 1);
    const r = Math.round(255 - 55 * x), g = Math.round(245 - 200 * x), bl = Math.round(235 - 215 * x);
    return `rgb(${r},${g},${bl})`;
  };
  return { lo, hi, log, colour };
};

SN.isDark = (rgb) => {
  const [r, g, b] = (rgb.match(/\d+/g) || [255, 255, 255]).map(Number);
  return 0.299 * r + 0.587 * g + 0.114 * b < 140;
};

SN.legend = function legend(host, overlay, scale, extremes, name) {
  host.replaceChildren();
  if (!overlay || !scale) { host.hidden = true; return; }
  host.hidden = false;
  const text = (v) => SN.valueText(name, overlay, v);
  host.append(SN.el("span", "symnb-legend-label", `${overlay.label}${overlay.source ? " (" + overlay.source + ")" : ""}`));
  host.append(SN.el("span", "symnb-legend-value", text(scale.lo)));
  const bar = SN.el("span", "symnb-legend-bar");
  bar.style.background = `linear-gradient(to right, ${scale.colour(scale.lo)}, ${scale.colour((scale.lo + scale.hi) / 2)}, ${scale.colour(scale.hi)})`;
  host.append(bar, SN.el("span", "symnb-legend-value", text(scale.hi) + (scale.log ? " (log scale)" : "")));
  for (const [word, list] of [["lowest", extremes ? extremes.low : []], ["highest", extremes ? extremes.high : []]]) {
    if (!list.length) continue;
    host.append(SN.el("span", "symnb-legend-key", word + ":"));
    for (const item of list) {  // a click shows the node (its groups opened), selected
      const link = SN.el("button", "symnb-legend-link", `${item.label} ${text(item.value)}`);
      link.dataset.id = item.id;
      host.append(link);
    }
  }
  // A profile's parts of the call no box shows, coloured on the same scale: with the
  // boxes' shares they make up the whole call.
  for (const [key, words] of [["outside", "outside the XLA program (argument checks, dispatch, transfers, copies)"],
                              ["unnamed", "XLA work no node names"]]) {
    if (overlay[key] === undefined) continue;
    const part = SN.el("span", "symnb-legend-part", `${words}: ${text(overlay[key])}`);
    part.style.borderLeft = `12px solid ${scale.colour(overlay[key])}`;
    host.append(part);
  }
  if (overlay.note) host.append(SN.el("span", "symnb-legend-note", overlay.note));
};

// An overlay's number as every part of the view writes it, in one unit: a share of the
// call as a percentage (the boxes' tags, the legend, the card), else the number and unit.
SN.SHARES = new Set(["time_share"]);
SN.valueText = (name, overlay, v) => (SN.SHARES.has(name) ? `${Number((100 * v).toPrecision(3))}%`
  : SN.number(v) + (overlay && overlay.unit ? " " + overlay.unit : ""));

SN.number = (v) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(2) : String(Math.round(v * 1000) / 1000));

// The node card: what the model says of a node or group, as text.
SN.card = function card(host, ix, id, overlayName, actions) {
  host.replaceChildren();
  if (!id) { host.append(SN.el("div", "symnb-card-hint", "click a box: its card shows here")); return; }
  const row = (key, value) => {
    if (value === null || value === undefined || value === "") return;
    const line = SN.el("div", "symnb-card-row");
    line.append(SN.el("span", "symnb-card-key", key), SN.el("span", "symnb-card-value", value));
    host.append(line);
  };
  const group = ix.groups.get(id), node = ix.nodes.get(id);
  const overlay = overlayName && ix.model.overlays && ix.model.overlays[overlayName];
  host.append(SN.el("div", "symnb-card-title", group ? group.label || id : node ? node.label || id : id));
  if (group) {
    row("group", `${group.kind || "group"}${group.region && group.region !== "forward" ? " \u00b7 " + group.region : ""}`);
    row("nodes", String(ix.size.get(id) || 0));
    if (group.series) row("series", `${group.series.count} calls with the same structure`);
    if (group.mirrors && ix.groups.has(group.mirrors)) row("mirrors", ix.groups.get(group.mirrors).label);
    const button = SN.el("button", "symnb-card-button", actions.isOpen(id) ? "close group" : "open group");
    button.addEventListener("click", () => actions.toggle(id));
    host.append(button);
  } else if (node) {
    row("op", node.op);
    row("runs", node.runs);  // "Python (host callback)": an op written in Python only
    row("name", node.name);
    row("kind", node.kind);
    (node.outs || []).forEach((o, i) => row(node.outs.length > 1 ? `out ${i}` : "type", SN.typeText(ix, { src: id, out: i })));
    row("line", node.line);
    if (node.code) host.append(SN.el("pre", "symnb-card-code", node.code));
    row("value", node.summary);
    if (node.failing) row("error", "this node failed");
    for (const inner of SN.innerGroups(ix, id)) {  // a loop's body, a condition's branches
      const label = ix.groups.get(inner).label || inner;
      const words = ix.groups.get(inner).label && /\sbody$/.test(label) ? "its body" : label;
      const button = SN.el("button", "symnb-card-button symnb-card-inner", actions.isOpen(inner) ? `close ${words}` : `open ${words}`);
      button.dataset.group = inner;
      button.addEventListener("click", () => actions.toggle(inner));
      host.append(button);
    }
    const ins = ix.inputs.get(id) || [];
    if (ins.length) {
      host.append(SN.el("div", "symnb-card-key", "inputs"));
      for (const e of ins.slice(0, 12)) {
        const src = ix.nodes.get(e.src) || {};
        const link = SN.el("button", "symnb-card-link", `${src.label || e.src}  ${SN.typeText(ix, e)}`);
        link.addEventListener("click", () => actions.select(e.src));
        host.append(link);
      }
      if (ins.length > 12) host.append(SN.el("div", "symnb-card-row", `\u2026 ${ins.length - 12} more`));
    }
    row("used by", String((ix.consumers.get(id) || []).length));
  }
  if (overlay) {
    const v = group ? SN.groupValue(ix, overlayName, id) : overlay.values && overlay.values[id];
    const how = group ? (SUMMED.has(overlayName) ? " (sum inside)" : " (largest inside)") : "";
    row(overlay.label + how, typeof v === "number" ? SN.valueText(overlayName, overlay, v) : "\u2013");
  }
  const more = SN.el("div", "symnb-card-kernel");
  host.append(more);
  actions.details(id, more);
};

// The minimap: every box as a dot-rectangle, the part in view as a frame.
SN.minimap = function minimap(canvas, geo, view) {
  const ctx = canvas.getContext("2d");
  const w = canvas.width, h = canvas.height;
  ctx.clearRect(0, 0, w, h);
  const s = Math.min(w / geo.width, h / geo.height);
  ctx.fillStyle = "#9fb4d6";
  for (const r of geo.boxes.values()) ctx.fillRect(r.x * s, r.y * s, Math.max(r.w * s, 1), Math.max(r.h * s, 1));
  ctx.strokeStyle = "#c0c8d4";
  for (const r of geo.frames.values()) ctx.strokeRect(r.x * s, r.y * s, r.w * s, r.h * s);
  ctx.strokeStyle = "#d93025";
  ctx.lineWidth = 1.5;
  ctx.strokeRect(view.x * s, view.y * s, view.w * s, view.h * s);
  return s;
};
