// symnb viewer, part 2 of 4: layout. The visible boxes become ELK graphs (one per region:
// the forward spine, the gradient, the updates, placed side by side), laid out by ELK's
// layered algorithm in a web worker made from the shipped elkjs source (a Blob URL: no
// server route, no CDN). When the worker fails or times out, a simple layered layout in
// this file lays out the same graphs (the view says so).

SN.FONT = 12;  // px at zoom 1: every text in the view
const CHAR = 7.3;  // the monospace font's advance at 12 px
const BOX_H = 40, MAX_CHARS = 30;

SN.clip = (text, n = MAX_CHARS) => (text.length > n ? text.slice(0, n - 1) + "\u2026" : text);

// The two lines a box shows and its size.
SN.boxText = function boxText(ix, id) {
  const g = ix.groups.get(id);
  if (g) {
    const count = ix.size.get(id) || 0;
    const series = g.series && g.series.count ? `${g.series.count} calls \u00b7 ` : "";
    return { title: String(g.label || id), sub: `${series}${count} node${count === 1 ? "" : "s"}` };
  }
  const n = ix.nodes.get(id) || {};
  const type = n.outs && n.outs[0] ? SN.typeText(ix, { src: id, out: 0 }) : "";
  const title = String(n.label || n.op || id);
  const sub = n.op && n.op !== title ? `${n.op}${type ? "  " + type : ""}` : type || n.kind || "";
  return { title, sub };
};

SN.boxSize = function boxSize(text) {
  const chars = Math.max(SN.clip(text.title).length, SN.clip(text.sub).length, 6);
  return { width: Math.round(chars * CHAR + 20), height: BOX_H };
};

const ROOT_OPTIONS = {
  "elk.algorithm": "layered",
  "elk.direction": "DOWN",
  "elk.hierarchyHandling": "INCLUDE_CHILDREN",
  "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
  "elk.layered.nodePlacement.strategy": "NETWORK_SIMPLEX",
  "elk.layered.nodePlacement.bk.fixedAlignment": "BALANCED",
  "elk.layered.nodePlacement.favorStraightEdges": "true",
  "elk.edgeRouting": "ORTHOGONAL",
  "elk.spacing.nodeNode": "24",
  "elk.layered.spacing.nodeNodeBetweenLayers": "30",
  "elk.layered.spacing.edgeNodeBetweenLayers": "14",
  "elk.spacing.edgeLabel": "3",
  "elk.edgeLabels.placement": "CENTER",
  "elk.padding": "[top=12,left=12,bottom=12,right=12]",
};
const FRAME_TOP = 30;

SN.REGIONS = ["forward", "gradient", "updates"];
// The gradient flows back up, the way backpropagation is drawn: the gradient of layer k
// then sits level with layer k (its mirror), its input (the loss) at the bottom.
SN.direction = (region) => (region === "gradient" ? "UP" : "DOWN");

// One ELK graph per region from the visible tree; bundles joining two regions are kept
// apart (`across`): routed between the regions by SN.geometry, never over the spine.
SN.layoutGraphs = function layoutGraphs(ix, tree, bundles) {
  const roots = new Map();
  const region = (name) => {
    if (!roots.has(name)) {
      roots.set(name, { id: "region:" + name, region: name, children: [], edges: [],
        layoutOptions: { ...ROOT_OPTIONS, "elk.direction": SN.direction(name) } });
    }
    return roots.get(name);
  };
  const frames = new Map(), flat = [];
  const order = (item) => ix.order.get(item.id) ?? 1e12;
  const make = (item, direction) => {
    const text = SN.boxText(ix, item.id);
    if (item.kind !== "frame") return { id: item.id, ...SN.boxSize(text) };
    const minWidth = SN.boxSize({ title: text.title + " \u2212", sub: "" }).width + 24;
    const frame = { id: item.id, children: [], edges: [], layoutOptions: {
      "elk.padding": `[top=${FRAME_TOP},left=12,bottom=12,right=12]`,
      "elk.direction": direction,
      "elk.nodeSize.constraints": "MINIMUM_SIZE",
      "elk.nodeSize.minimum": `(${minWidth}, 60)`,
    } };
    frames.set(item.id, frame);
    frame.children = [...item.children].sort((a, b) => order(a) - order(b)).map((c) => make(c, direction));
    flat.push(frame);
    return frame;
  };
  for (const item of [...tree].sort((a, b) => order(a) - order(b))) {
    const name = SN.regionOf(ix, item.id);
    region(name).children.push(make(item, SN.direction(name)));
  }
  // The data path: into each box, the bundle from its biggest source (a layer's input from
  // the layer before, not a label vector): ELK keeps those edges straight first.
  const weight = (id) => (ix.groups.has(id) ? ix.size.get(id) || 1 : 1);
  const spine = new Map();
  for (const b of bundles) {
    const best = spine.get(b.dst);
    if (!best || weight(b.src) > weight(best.src)) spine.set(b.dst, b);
  }
  const across = [];
  for (const b of bundles) {
    const rs = SN.regionOf(ix, b.src), rd = SN.regionOf(ix, b.dst);
    if (rs !== rd) { across.push(b); continue; }
    const a = SN.ancestors(ix, b.src), c = SN.ancestors(ix, b.dst);
    let lca = null;
    for (let i = 0; i < Math.min(a.length, c.length) && a[i] === c[i]; i++) lca = a[i];
    const container = (lca && frames.get(lca)) || region(rs);
    const text = b.count > 1 ? `${b.type} \u00d7${b.count}` : b.type;
    const edge = { id: b.id, sources: [b.src], targets: [b.dst] };
    if (spine.get(b.dst) === b) edge.layoutOptions = { "elk.layered.priority.straightness": "10", "elk.layered.priority.shortness": "10" };
    if (text) edge.labels = [{ text, width: Math.round(text.length * CHAR + 6), height: 16 }];
    container.edges.push(edge);
  }
  // A frame of boxes with no edge between them (the updates: one per parameter, fed from
  // the other regions) is a column in data-flow order, not one row as wide as the graph.
  for (const frame of flat) {
    if (frame.edges.length || !frame.children.every((c) => !c.children)) continue;
    const inside = new Set(frame.children.map((c) => c.id));
    if ([...roots.values()].some((r) => edgesIn(r).some((e) => inside.has(e.sources[0]) || inside.has(e.targets[0])))) continue;
    Object.assign(frame.layoutOptions, { "elk.hierarchyHandling": "SEPARATE_CHILDREN", "elk.direction": "RIGHT" });
  }
  const ordered = [...SN.REGIONS, ...[...roots.keys()].filter((r) => !SN.REGIONS.includes(r))];
  return { graphs: ordered.filter((r) => roots.has(r)).map((r) => roots.get(r)), across };
};

const edgesIn = (n) => [...(n.edges || []), ...(n.children || []).flatMap(edgesIn)];

// ELK in a worker built from its source text. One layout at a time; a timeout or an error
// rejects (the worker is then thrown away and made again on the next call).
SN.ElkRunner = class ElkRunner {
  constructor(source) { this.source = source; this.worker = null; this.url = null; this.next = 0; }
  start() {
    if (this.worker) return;
    if (!this.source) throw new Error("no ELK source in this page");
    this.url = URL.createObjectURL(new Blob([this.source], { type: "text/javascript" }));
    this.worker = new Worker(this.url);
    this.worker.postMessage({ id: this.next++, cmd: "register", algorithms: ["layered"] });
  }
  layout(graph, timeoutMs) {
    return new Promise((resolve, reject) => {
      try { this.start(); } catch (err) { reject(err); return; }
      const id = this.next++, worker = this.worker;
      const timer = setTimeout(() => { this.stop(); reject(new Error(`ELK took more than ${timeoutMs / 1000} s`)); }, timeoutMs);
      const listen = (event) => {
        if (!event.data || event.data.id !== id) return;
        clearTimeout(timer);
        worker.removeEventListener("message", listen);
        if (event.data.error) reject(new Error(String(event.data.error.message || event.data.error)));
        else resolve(event.data.data);
      };
      worker.addEventListener("message", listen);
      worker.onerror = (event) => { clearTimeout(timer); this.stop(); reject(new Error(event.message || "the layout worker failed")); };
      worker.postMessage({ id, cmd: "layout", graph, layoutOptions: {}, options: {} });
    });
  }
  stop() {
    if (this.worker) this.worker.terminate();
    if (this.url) URL.revokeObjectURL(this.url);
    this.worker = null; this.url = null;
  }
};

// The fallback: layered by longest path, each compound laid out inside out, boxes centred
// in their layer, straight edges. Same input and output shape as ELK's JSON.
SN.simpleLayout = function simpleLayout(root) {
  const parentOf = new Map();
  const walk = (n) => (n.children || []).forEach((c) => { parentOf.set(c.id, n); walk(c); });
  walk(root);
  const edgesUnder = (n) => [...(n.edges || []), ...(n.children || []).flatMap(edgesUnder)];
  const childHolding = (container, id) => {
    let node = parentOf.get(id) ? { id } : null;
    while (node && parentOf.get(node.id) !== container) node = parentOf.get(node.id);
    return node ? node.id : null;
  };
  const upward = (n) => {  // a container's direction: its own, else its parent's
    for (let c = n; c; c = parentOf.get(c.id)) {
      const d = c.layoutOptions && c.layoutOptions["elk.direction"];
      if (d) return d === "UP";
    }
    return false;
  };
  const lay = (container, top) => {
    const kids = container.children || [];
    kids.forEach((k) => { if (k.children && k.children.length) lay(k, FRAME_TOP); });
    kids.forEach((k) => { k.width = k.width || 60; k.height = k.height || BOX_H; });
    const layer = new Map(kids.map((k) => [k.id, 0]));
    // Longest path over the links between children, in topological order (Kahn's); a
    // link closing a cycle is left out.
    const out = new Map(kids.map((k) => [k.id, new Set()])), waiting = new Map(kids.map((k) => [k.id, 0]));
    for (const e of edgesUnder(container)) {
      const s = childHolding(container, e.sources[0]), d = childHolding(container, e.targets[0]);
      if (s && d && s !== d && !out.get(s).has(d)) { out.get(s).add(d); waiting.set(d, waiting.get(d) + 1); }
    }
    const done = new Set();
    while (done.size < kids.length) {
      let next = kids.find((k) => !done.has(k.id) && waiting.get(k.id) === 0);
      if (!next) next = kids.find((k) => !done.has(k.id));  // a cycle: its first child in order
      done.add(next.id);
      for (const d of out.get(next.id)) {
        if (done.has(d)) continue;
        waiting.set(d, waiting.get(d) - 1);
        layer.set(d, Math.max(layer.get(d), layer.get(next.id) + 1));
      }
    }
    let layers = [];
    kids.forEach((k) => { const l = layer.get(k.id); (layers[l] = layers[l] || []).push(k); });
    if (upward(container)) layers = layers.filter(Boolean).reverse();  // the gradient flows up
    const own = container.layoutOptions && container.layoutOptions["elk.direction"];
    if (own === "RIGHT") layers = kids.map((k) => [k]);  // a frame of unlinked boxes: a column
    let y = top, width = 0;
    const rows = layers.filter(Boolean).map((row) => {
      const w = row.reduce((s, k) => s + k.width, 0) + 24 * (row.length - 1);
      width = Math.max(width, w);
      const h = Math.max(...row.map((k) => k.height));
      const at = y; y += h + 40;
      return { row, w, at };
    });
    for (const { row, w, at } of rows) {
      let x = 12 + (width - w) / 2;
      for (const k of row) { k.x = x; k.y = at; x += k.width + 24; }
    }
    container.width = Math.max(container.width || 0, width + 24);
    container.height = Math.max(container.height || 0, y - 40 + 12 + (rows.length ? 0 : 40));
  };
  lay(root, 12);
  const abs = new Map([[root.id, { x: 0, y: 0 }]]);
  const place = (n, ox, oy) => (n.children || []).forEach((c) => { abs.set(c.id, { x: ox + c.x, y: oy + c.y, n: c }); place(c, ox + c.x, oy + c.y); });
  place(root, 0, 0);
  const route = (container) => {
    const o = abs.get(container.id);
    for (const e of container.edges || []) {
      const s = abs.get(e.sources[0]), d = abs.get(e.targets[0]);
      if (!s || !d) continue;
      let start = { x: s.x + s.n.width / 2 - o.x, y: s.y + s.n.height - o.y };
      let end = { x: d.x + d.n.width / 2 - o.x, y: d.y - o.y };
      // Down, across in the gap above the target, down: no diagonal over the boxes between
      // (up, the same way, where the target is above: the gradient).
      let bend = end.y - 16 > start.y ? [{ x: start.x, y: end.y - 16 }, { x: end.x, y: end.y - 16 }] : [];
      if (d.y + d.n.height <= s.y) {
        start = { x: start.x, y: s.y - o.y };
        end = { x: end.x, y: d.y + d.n.height - o.y };
        bend = [{ x: start.x, y: end.y + 16 }, { x: end.x, y: end.y + 16 }];
      }
      const up = d.y + d.n.height <= s.y;
      if (crossing(o, [start, ...bend, end], e)) {
        // Past the boxes between: out into the gap beside the source, along the
        // container's right margin, back in the gap beside the target.
        const side = container.width - 6, step = up ? -8 : 8, near = up ? 16 : -16;
        bend = [{ x: start.x, y: start.y + step }, { x: side, y: start.y + step },
          { x: side, y: end.y + near }, { x: end.x, y: end.y + near }];
      }
      e.sections = [{ startPoint: start, endPoint: end, bendPoints: bend }];
      const at = bend.length === 4 ? { x: bend[1].x - 4, y: (bend[1].y + bend[2].y) / 2 } : { x: (start.x + end.x) / 2 + 4, y: (start.y + end.y) / 2 - 8 };
      for (const label of e.labels || []) { label.x = at.x; label.y = at.y; }
    }
    (container.children || []).forEach(route);
  };
  const leaves = [...abs.values()].filter((a) => a.n && !(a.n.children && a.n.children.length));
  const crossing = (o, points, e) => points.some((p, i) => i > 0 && leaves.some((a) => {
    if (a.n.id === e.sources[0] || a.n.id === e.targets[0]) return false;
    const x0 = Math.min(p.x, points[i - 1].x) + o.x, x1 = Math.max(p.x, points[i - 1].x) + o.x;
    const y0 = Math.min(p.y, points[i - 1].y) + o.y, y1 = Math.max(p.y, points[i - 1].y) + o.y;
    return x1 > a.x + 1 && x0 < a.x + a.n.width - 1 && y1 > a.y + 1 && y0 < a.y + a.n.height - 1;
  }));
  route(root);
  return root;
};

// -- the regions side by side ------------------------------------------------------------------
// Each region is laid out on its own (the spine stays straight whatever the gradient does);
// a side region is then moved up or down so that its groups sit level with the forward
// groups they mirror, and the bundles joining two regions are routed here: out of the
// source box's side, down or up a lane of the gutter between the regions, into the target
// box's side, through free space only (never over a box). Their count is their label.

const LANE = 8, GUTTER_PAD = 14;

// A laid-out region's boxes, frames and edges in its own coordinates.
SN.regionGeometry = function regionGeometry(root) {
  const boxes = new Map(), frames = new Map(), edges = [];
  const abs = new Map([[root.id, { x: 0, y: 0 }]]);
  const visit = (n, ox, oy) => {
    for (const c of n.children || []) {
      const at = { x: ox + (c.x || 0), y: oy + (c.y || 0) };
      abs.set(c.id, at);
      const rect = { x: at.x, y: at.y, w: c.width || 0, h: c.height || 0, region: root.region };
      if (c.children && c.children.length) frames.set(c.id, rect); else boxes.set(c.id, rect);
      visit(c, at.x, at.y);
    }
  };
  visit(root, 0, 0);
  const route = (n) => {
    for (const e of n.edges || []) {
      const o = abs.get(e.container || n.id) || abs.get(n.id);
      const points = [];
      for (const s of e.sections || []) points.push(s.startPoint, ...(s.bendPoints || []), s.endPoint);
      const labels = (e.labels || []).map((l) => ({ text: l.text, x: o.x + (l.x || 0), y: o.y + (l.y || 0), w: l.width, h: l.height }));
      edges.push({ id: e.id, src: e.sources[0], dst: e.targets[0], points: points.map((p) => ({ x: o.x + p.x, y: o.y + p.y })), labels });
    }
    (n.children || []).forEach(route);
  };
  route(root);
  return { region: root.region, w: root.width || 0, h: root.height || 0, boxes, frames, edges, dx: 0, dy: 0 };
};

// How far a side region moves down so that its groups sit level with their mirrors (the
// median offset over the visible pairs; boxes first, frames when no box pairs up).
SN.mirrorOffset = function mirrorOffset(ix, part, forward) {
  const offsets = (mine, theirs) => {
    const out = [];
    for (const [id, r] of mine) {
      const g = ix.groups.get(id), m = g && g.mirrors;
      const f = m && (theirs.get(m) || forward.frames.get(m) || forward.boxes.get(m));
      if (f) out.push(theirs === forward.boxes ? f.y + f.h / 2 - (r.y + r.h / 2) : f.y - r.y);
    }
    return out;
  };
  let list = offsets(part.boxes, forward.boxes);
  if (!list.length) list = offsets(part.frames, forward.frames);
  if (!list.length) return 0;
  list.sort((a, b) => a - b);
  return list[Math.floor(list.length / 2)];
};

const shifted = (r, dx, dy) => ({ ...r, x: r.x + dx, y: r.y + dy });

// The regions side by side, `gaps[k]` apart: absolute boxes, frames, edges.
SN.assemble = function assemble(parts, gaps) {
  const boxes = new Map(), frames = new Map(), edges = [], regions = [];
  let left = 0, height = 0;
  parts.forEach((p, k) => {
    p.dx = left;
    for (const [id, r] of p.boxes) boxes.set(id, shifted(r, p.dx, p.dy));
    for (const [id, r] of p.frames) frames.set(id, shifted(r, p.dx, p.dy));
    for (const e of p.edges) {
      edges.push({ ...e, points: e.points.map((q) => ({ x: q.x + p.dx, y: q.y + p.dy })),
        labels: e.labels.map((l) => shifted(l, p.dx, p.dy)) });
    }
    regions.push({ region: p.region, x: p.dx, y: p.dy, w: p.w, h: p.h });
    height = Math.max(height, p.dy + p.h);
    left += p.w + (k < parts.length - 1 ? gaps[k] : 0);
  });
  return { boxes, frames, edges, regions, width: Math.max(left, 1), height: Math.max(height, 1) };
};

SN.geometry = function geometry(graphs, across, ix) {
  const parts = graphs.map((g) => SN.regionGeometry(g));
  const forward = parts.find((p) => p.region === "forward");
  if (forward && ix) for (const p of parts) if (p !== forward) p.dy = SN.mirrorOffset(ix, p, forward);
  const top = Math.min(0, ...parts.map((p) => p.dy));
  parts.forEach((p) => { p.dy -= top; });
  const home = new Map();  // box id -> its region's index
  parts.forEach((p, i) => { for (const id of p.boxes.keys()) home.set(id, i); });
  const bundles = (across || []).filter((b) => home.has(b.src) && home.has(b.dst) && home.get(b.src) !== home.get(b.dst));
  // Where the bundles go does not depend on the gutters' widths: plan them first, then
  // make each gutter as wide as its labels and lanes.
  const plan = SN.planAcross(SN.assemble(parts, parts.map(() => 60)), bundles, home, parts.length);
  const gaps = plan.gutters.map((g) => Math.max(GUTTER_PAD * 2 + g.labelRoom + LANE * g.lanes, 56));
  const geo = SN.assemble(parts, gaps);
  SN.routeAcross(geo, plan, parts);
  return geo;
};

// Whether an axis-parallel segment passes through the inside of a box (besides `skip`).
SN.hitsBox = function hitsBox(geo, a, b, skip) {
  const x0 = Math.min(a.x, b.x), x1 = Math.max(a.x, b.x), y0 = Math.min(a.y, b.y), y1 = Math.max(a.y, b.y);
  for (const [id, r] of geo.boxes) {
    if (skip.has(id)) continue;
    if (x1 > r.x + 1 && x0 < r.x + r.w - 1 && y1 > r.y + 1 && y0 < r.y + r.h - 1) return true;
  }
  return false;
};

// Each bundle's way: `direct` (straight across, its two boxes level: a layer and its
// gradient) or along a trunk, one per target box and gutter, shared by all the bundles
// into that box (a bus, not one line each). Trunks whose spans do not overlap share a lane.
SN.planAcross = function planAcross(geo, bundles, home, count) {
  const gutters = Array.from({ length: Math.max(count - 1, 0) }, () => ({ labelRoom: 0, lanes: 0, trunks: new Map() }));
  const below = geo.height + 16;
  const plans = [];
  for (const b of bundles) {
    const s = geo.boxes.get(b.src), d = geo.boxes.get(b.dst);
    const i = home.get(b.src), j = home.get(b.dst), forward = i < j;
    const out = forward ? i : i - 1, into = forward ? j - 1 : j;
    const label = `\u00d7${b.count}`;
    const lo = Math.max(s.y, d.y) + 4, hi = Math.min(s.y + s.h, d.y + d.h) - 4;
    const plan = { b, s, d, forward, out, into, label, direct: null, lo, hi };
    plans.push(plan);
    if (out === into && hi >= lo) {
      const y = (lo + hi) / 2, skip = new Set([b.src, b.dst]);
      const a = { x: forward ? s.x + s.w : s.x, y }, z = { x: forward ? d.x : d.x + d.w, y };
      if (!SN.hitsBox(geo, a, z, skip)) { plan.direct = y; continue; }
    }
    // Past the next region, the bundles share one trunk (down the gutter, along the
    // corridor under the regions) to the gutter where they part for their own boxes.
    plan.key = out === into ? b.dst : "region:" + j;
    const span = (g, y0, y1, key = b.dst) => {
      const t = gutters[g].trunks.get(key) || { lo: Infinity, hi: -Infinity };
      t.lo = Math.min(t.lo, y0 - 30); t.hi = Math.max(t.hi, y1 + 30);
      gutters[g].trunks.set(key, t);
    };
    if (out === into) span(out, Math.min(s.y, d.y), Math.max(s.y + s.h, d.y + d.h));
    else { span(out, s.y, below, plan.key); span(into, d.y, below, "corridor"); }
  }
  // The count labels of one box's bundles stand side by side in the gutter, each over its
  // own line (the lines leave the box a few pixels apart: stacked labels would overlap).
  const bySource = new Map();
  for (const p of plans) { const k = p.b.src + "\u0000" + p.out; if (!bySource.has(k)) bySource.set(k, []); bySource.get(k).push(p); }
  for (const list of bySource.values()) {
    let room = 0;
    for (const p of list.sort((m, n) => m.d.y - n.d.y)) { p.labelOffset = room; room += p.label.length * CHAR + 6; }
    gutters[list[0].out].labelRoom = Math.max(gutters[list[0].out].labelRoom, room + 4);
  }
  for (const g of gutters) {  // greedy interval colouring: the fewest lanes
    const ends = [];
    for (const [, t] of [...g.trunks].sort((p, q) => p[1].lo - q[1].lo)) {
      let lane = ends.findIndex((end) => end < t.lo);
      if (lane < 0) { lane = ends.length; ends.push(0); }
      ends[lane] = t.hi; t.lane = lane;
    }
    g.lanes = ends.length;
  }
  return { plans, gutters };
};

// The way from a box's side (`right`: its right side, else its left) to the lane at `x`:
// straight across at `y` when that is free, else round the box's bottom or top.
SN.sideRoute = function sideRoute(geo, r, y, right, x, skip) {
  const side = right ? r.x + r.w : r.x, cx = r.x + r.w / 2;
  const clear = (pts) => pts.every((p, i) => i === 0 || !SN.hitsBox(geo, pts[i - 1], p, skip));
  const candidates = [[{ x: side, y }, { x, y }]];
  for (const d of [10, 18, 26]) {
    candidates.push([{ x: cx, y: r.y + r.h }, { x: cx, y: r.y + r.h + d }, { x, y: r.y + r.h + d }]);
    candidates.push([{ x: cx, y: r.y }, { x: cx, y: r.y - d }, { x, y: r.y - d }]);
  }
  return candidates.find(clear) || candidates[0];
};

SN.routeAcross = function routeAcross(geo, { plans, gutters }, parts) {
  const at = (k) => parts[k].dx + parts[k].w;  // gutter k's left side
  const laneX = (k, dst) => at(k) + gutters[k].labelRoom + GUTTER_PAD + LANE * gutters[k].trunks.get(dst).lane;
  const below = geo.height + 16;
  const corridors = new Map();  // target box -> its lane under the regions
  // Spread the ways out of (into) one box along its side: each bundle out, each trunk in.
  const sides = new Map();
  const mark = (key, token, y) => { if (!sides.has(key)) sides.set(key, new Map()); sides.get(key).set(token, y); };
  for (const p of plans) {
    mark("out:" + p.b.src, p, p.d.y);
    if (p.direct === null) mark("in:" + p.b.dst, p.into + ":" + p.b.dst, p.s.y); else mark("in:" + p.b.dst, p, p.s.y);
  }
  const sideY = (key, token, r) => {
    const list = [...sides.get(key)].sort((m, n) => m[1] - n[1]).map((m) => m[0]);
    return r.y + (r.h * (list.indexOf(token) + 1)) / (list.length + 1);
  };
  for (const p of plans) {
    const { b, s, d, forward, out, into } = p;
    const skip = new Set([b.src, b.dst]);
    const sNow = geo.boxes.get(b.src), dNow = geo.boxes.get(b.dst);
    let points;
    if (p.direct !== null) {
      const spread = sideY("out:" + b.src, p, s);
      const y = spread >= p.lo && spread <= p.hi ? spread : p.direct;
      points = [{ x: forward ? sNow.x + sNow.w : sNow.x, y }, { x: forward ? dNow.x : dNow.x + dNow.w, y }];
    } else {
      const xOut = laneX(out, p.key), xIn = laneX(into, out === into ? b.dst : "corridor");
      const head = SN.sideRoute(geo, sNow, sideY("out:" + b.src, p, s), forward, xOut, skip);
      const tail = SN.sideRoute(geo, dNow, sideY("in:" + b.dst, into + ":" + b.dst, d), !forward, xIn, skip).reverse();
      let middle = [];
      if (out !== into) {
        if (!corridors.has(p.key)) corridors.set(p.key, corridors.size);
        const y = below + LANE * corridors.get(p.key);
        middle = [{ x: xOut, y }, { x: xIn, y }];
      }
      points = [...head, ...middle, ...tail];
    }
    const y = points[0].y === points[1].y ? points[0].y : points[points.length > 2 ? 2 : 1].y;
    const labelX = (forward ? at(out) + 4 : at(out) + gutters[out].labelRoom + GUTTER_PAD + LANE * gutters[out].lanes) + p.labelOffset;
    geo.edges.push({ id: "across:" + b.id, src: b.src, dst: b.dst, across: true, count: b.count, type: b.type,
      points, labels: [{ text: p.label, x: labelX, y: y - 15, w: p.label.length * CHAR, h: 14 }] });
  }
  if (corridors.size) geo.height = below + LANE * corridors.size + 8;
};
