// symnb viewer, part 1 of 12: the graph model in the browser (VIEWER_FORMAT.md's dict).
//
// Indexes the model once (nodes, groups, children, counts, search strings) and answers,
// for a set of open groups, which boxes are visible and which bundled edges join them.
// Everything here is plain data: no DOM, no kernel. Concatenated by symnb/widgets/viewer.py
// with the other parts inside one function scope that defines `SN`.

SN.decodeModel = async function decodeModel(text) {
  // base64 of gzip(JSON) (encode_view_model), or plain JSON text.
  if (typeof text !== "string") return text;
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) return JSON.parse(trimmed);
  const binary = atob(trimmed);  // a plain loop: Uint8Array.from with a map takes 5x longer
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
};

SN.indexModel = function indexModel(model) {
  const nodes = new Map(), groups = new Map();
  for (const n of model.nodes || []) nodes.set(n.id, n);
  for (const g of model.groups || []) groups.set(g.id, g);
  const parent = new Map();  // group id -> parent group id (or null)
  for (const g of groups.values()) parent.set(g.id, g.parent && groups.has(g.parent) ? g.parent : null);
  for (const g of groups.values()) {  // a folded series holds its items, whatever they say
    for (const item of (g.series && g.series.items) || []) if (groups.has(item) && item !== g.id) parent.set(item, g.id);
  }
  const kids = new Map([["", { groups: [], nodes: [] }]]);
  const slot = (id) => { const key = id || ""; if (!kids.has(key)) kids.set(key, { groups: [], nodes: [] }); return kids.get(key); };
  for (const g of groups.values()) slot(parent.get(g.id)).groups.push(g.id);
  const nodeGroup = new Map();
  for (const n of nodes.values()) {
    const g = n.group && groups.has(n.group) ? n.group : null;
    nodeGroup.set(n.id, g);
    slot(g).nodes.push(n.id);
  }
  const inputs = new Map(), consumers = new Map();
  for (const e of model.edges || []) {
    if (!nodes.has(e.src) || !nodes.has(e.dst)) continue;
    if (!inputs.has(e.dst)) inputs.set(e.dst, []);
    inputs.get(e.dst).push(e);
    if (!consumers.has(e.src)) consumers.set(e.src, []);
    consumers.get(e.src).push(e);
  }
  const size = new Map();  // group id -> nodes inside, at any depth
  const order = new Map();  // node or group id -> its (first) node's place in data-flow order
  let place = 0;
  for (const id of SN.topological(nodes, inputs, consumers)) {
    const n = nodes.get(id);
    order.set(n.id, place);
    for (let g = nodeGroup.get(n.id); g; g = parent.get(g)) size.set(g, (size.get(g) || 0) + 1);
    place += 1;
  }
  // A group's place: its first computed node's (constants and other roots all come first
  // in data-flow order, whichever group they are in). Nodes are visited in that order, so
  // the first to reach a group sets it, and its ancestors were set no later.
  for (const computed of [true, false]) {
    for (const [id, at] of order) {
      if (!nodes.has(id) || ((inputs.get(id) || []).length > 0) !== computed) continue;
      for (let g = nodeGroup.get(id); g && !order.has(g); g = parent.get(g)) order.set(g, at);
    }
  }
  return { model, nodes, groups, parent, kids, nodeGroup, size, order, inputs, consumers, searchText: null };
};

// Node ids in data-flow order (Kahn's, ties in the model's order; a cycle's rest last).
SN.topological = function topological(nodes, inputs, consumers) {
  const waiting = new Map();
  for (const id of nodes.keys()) waiting.set(id, (inputs.get(id) || []).length);
  const ready = [...nodes.keys()].filter((id) => waiting.get(id) === 0);
  const out = [];
  for (let i = 0; i < ready.length; i++) {
    const id = ready[i];
    out.push(id);
    for (const e of consumers.get(id) || []) {
      const left = waiting.get(e.dst) - 1;
      waiting.set(e.dst, left);
      if (left === 0) ready.push(e.dst);
    }
  }
  if (out.length < nodes.size) { const seen = new Set(out); for (const id of nodes.keys()) if (!seen.has(id)) out.push(id); }
  return out;
};

SN.ancestors = function ancestors(ix, id) {
  // The groups around node or group `id`, outermost first.
  const chain = [];
  let g = ix.groups.has(id) ? ix.parent.get(id) : ix.nodeGroup.get(id);
  for (; g; g = ix.parent.get(g)) chain.push(g);
  return chain.reverse();
};

// The "inner" groups (loop bodies, branches) of the node `holder`, in the model's order.
SN.innerGroups = function innerGroups(ix, holder) {
  return [...ix.groups.values()].filter((g) => g.kind === "inner" && g.holder === holder).map((g) => g.id);
};

SN.regionOf = function regionOf(ix, id) {
  // A box's region: its outermost group's (the spine unless a group says otherwise).
  const chain = SN.ancestors(ix, id);
  const top = chain.length ? ix.groups.get(chain[0]) : ix.groups.get(id) || ix.nodes.get(id);
  return (top && top.region) || "forward";
};

// Roots drawn inside the one group using them: parameters and constants. The function's
// inputs stay boxes of their own, at the top of the spine (where the data comes in).
const LEAVES = new Set(["shared", "constant"]);

// The box drawing each node and group for the open set `open`: the outermost closed group
// around it, or itself. `null` for an open group (drawn as a frame).
SN.boxMap = function boxMap(ix, open) {
  const groupBox = new Map();
  const boxOfGroup = (g) => {
    if (groupBox.has(g)) return groupBox.get(g);
    const p = ix.parent.get(g);
    const outer = p ? boxOfGroup(p) : null;
    // A closed loop body (an "inner" group) is drawn as the node holding it, not as a box
    // of its own: the loop's box stands for it until its card opens it.
    const group = ix.groups.get(g);
    const closed = group && group.kind === "inner" && group.holder && ix.nodes.has(group.holder) ? group.holder : g;
    const box = outer !== null ? outer : (open.has(g) ? null : closed);
    groupBox.set(g, box);
    return box;
  };
  const base = (id) => {
    if (ix.groups.has(id)) { const b = boxOfGroup(id); return b === null ? id : b; }
    const g = ix.nodeGroup.get(id);
    if (!g) return id;
    const b = boxOfGroup(g);
    return b === null ? id : b;
  };
  // A root variable (input, parameter, constant) that feeds only one closed group is drawn
  // inside it (TensorBoard draws a scope's constants and parameters in the scope): no edge
  // from each parameter into its layer, and no false edge between two layers.
  const absorbed = new Map();
  for (const n of ix.nodes.values()) {
    if (!LEAVES.has(n.kind) || base(n.id) !== n.id) continue;
    const home = SN.regionOf(ix, n.id), mine = new Set(), all = new Set();
    for (const e of ix.consumers.get(n.id) || []) {
      const b = base(e.dst);
      all.add(b);
      if (SN.regionOf(ix, b) === home) mine.add(b);
    }
    // Its region's one user, else its one user: the uses in other regions become the
    // bundled edges of that box (routed between the regions).
    const users = mine.size ? mine : all;
    const target = users.size === 1 ? [...users][0] : null;
    if (target !== null && ix.groups.has(target)) absorbed.set(n.id, target);
  }
  const boxOf = (id) => absorbed.get(id) || base(id);
  return { boxOf, boxOfGroup };
};

// The visible tree: {id, kind: "node"|"group"|"frame", children}; frames are open groups.
SN.visibleTree = function visibleTree(ix, open, boxOf) {
  const build = (groupId) => {
    const slot = ix.kids.get(groupId || "") || { groups: [], nodes: [] };
    const items = [];
    for (const g of slot.groups) {
      if (!open.has(g) && ix.groups.get(g).kind === "inner") continue;  // drawn as its holder
      items.push(open.has(g) ? { id: g, kind: "frame", children: build(g) } : { id: g, kind: "group" });
    }
    for (const n of slot.nodes) if (!boxOf || boxOf(n) === n) items.push({ id: n, kind: "node" });
    return items;
  };
  return build(null);
};

// Bundled edges between boxes: one per (source box, target box), with a count and the
// first edge's type (dtype and shape of the source's output).
SN.boxEdges = function boxEdges(ix, boxOf) {
  const bundles = new Map();
  for (const e of ix.model.edges || []) {
    if (!ix.nodes.has(e.src) || !ix.nodes.has(e.dst)) continue;
    const s = boxOf(e.src), d = boxOf(e.dst);
    if (s === d) continue;
    const key = s + "\u0000" + d;
    const b = bundles.get(key);
    if (b) { b.count += 1; continue; }
    bundles.set(key, { id: "e" + bundles.size, src: s, dst: d, count: 1, type: SN.typeText(ix, e) });
  }
  return [...bundles.values()];
};

SN.typeText = function typeText(ix, edge) {
  const node = ix.nodes.get(edge.src);
  const out = node && node.outs && node.outs[edge.out || 0];
  if (!out) return "";
  // Python's tuple notation, as every other view writes shapes: (3,), (2, 4), ().
  const dims = out.shape == null ? null : out.shape.map((d) => (d == null ? "?" : d));
  const shape = dims == null ? "" : ` (${dims.join(", ")}${dims.length === 1 ? "," : ""})`;
  return `${out.dtype || ""}${shape}`;
};

// One lower-cased string per node (label, name, op) and group, and its source line, made
// at the first search: not on the way to the first paint.
SN.searchText = function searchText(ix) {
  if (ix.searchText) return ix.searchText;
  ix.searchText = [];
  for (const n of ix.nodes.values()) {
    ix.searchText.push([n.id, `${n.label || ""}\u0001${n.name || ""}\u0001${n.op || ""}`.toLowerCase(),
      String(n.code || "").toLowerCase()]);
  }
  for (const g of ix.groups.values()) ix.searchText.push([g.id, String(g.label || "").toLowerCase(), ""]);
  return ix.searchText;
};

// Search in the whole graph (closed groups too): ids whose label, name or op contain
// `query`, then those whose source line does (an error names `T.log(noise_var)`, the box
// of the fused operation holding it reads `fused: log\u00b7mul`; its line has the text).
SN.search = function search(ix, query, limit = 5000) {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const hits = [], byLine = [];
  for (const [id, text, line] of SN.searchText(ix)) {
    if (text.includes(q)) { hits.push(id); if (hits.length >= limit) return hits; }
    else if (line.includes(q) && byLine.length < limit) byLine.push(id);
  }
  return hits.concat(byLine).slice(0, limit);
};

// A per-box number for an overlay: a node's own; a closed group's, its nodes' sum (counts,
// bytes, time) or maximum (everything else).
const SUMMED = new Set(["nan_count", "inf_count", "bytes", "time_share"]);
SN.overlayValues = function overlayValues(ix, name, boxOf) {
  const overlay = ix.model.overlays && ix.model.overlays[name];
  const out = new Map();
  if (!overlay) return out;
  const sum = SUMMED.has(name);
  for (const [id, value] of Object.entries(overlay.values || {})) {
    if (typeof value !== "number" || !Number.isFinite(value)) continue;
    if (!ix.nodes.has(id) && !ix.groups.has(id)) continue;
    const box = boxOf(id);  // a fused operation's time on its group: that group's box
    const before = out.get(box);
    out.set(box, before === undefined ? value : sum ? before + value : Math.max(before, value));
  }
  return out;
};

// The values of an overlay per call of a folded series (each call's nodes, summed or the
// largest as above), in call order: a closed `layer() x12` box shows them as a strip.
SN.seriesValues = function seriesValues(ix, name, seriesId) {
  const overlay = ix.model.overlays && ix.model.overlays[name];
  const series = ix.groups.get(seriesId);
  if (!overlay || !series || !series.series) return [];
  const items = series.series.items || [];
  const slot = new Map(items.map((id, k) => [id, k]));
  const values = items.map(() => undefined);
  const sum = SUMMED.has(name);
  for (const [id, value] of Object.entries(overlay.values || {})) {
    if (typeof value !== "number" || !Number.isFinite(value)) continue;
    const chain = [...SN.ancestors(ix, id), id];
    const item = chain.find((g) => slot.has(g));
    if (item === undefined) continue;
    const k = slot.get(item), before = values[k];
    values[k] = before === undefined ? value : sum ? before + value : Math.max(before, value);
  }
  return items.map((id, k) => ({ id, label: String((ix.groups.get(id) || {}).label || id), value: values[k] }));
};

// An overlay's values of the model's nodes and groups, [[id, value]]: what the legend
// may name, hence what its colour scale covers (SN.colouring).
SN.namedValues = function namedValues(ix, name) {
  const overlay = ix.model.overlays && ix.model.overlays[name];
  return Object.entries((overlay && overlay.values) || {})
    .filter(([id, v]) => typeof v === "number" && Number.isFinite(v) && (ix.nodes.has(id) || ix.groups.has(id)));
};

// The nodes with the lowest and the highest value of an overlay (where to look first:
// the layer whose gradient vanished, the node that overflowed).
SN.extremes = function extremes(ix, name, count = 3) {
  const list = SN.namedValues(ix, name).sort((a, b) => a[1] - b[1]);
  const named = ([id, value]) => {
    const item = ix.nodes.get(id) || ix.groups.get(id);
    const chain = SN.ancestors(ix, id);
    const where = chain.length ? ix.groups.get(chain[chain.length - 1]).label : "";
    return { id, value, label: String(item.label || id) + (where ? ` in ${where}` : "") };
  };
  const low = list.slice(0, count).map(named);
  const high = list.slice(Math.max(list.length - count, count)).reverse().map(named);
  return { low, high };
};

// A group's number for its card: what its box shows when closed (its nodes' and inner
// groups' values, summed or the largest).
SN.groupValue = function groupValue(ix, name, groupId) {
  const overlay = ix.model.overlays && ix.model.overlays[name];
  if (!overlay) return undefined;
  const sum = SUMMED.has(name);
  let out;
  for (const [id, value] of Object.entries(overlay.values || {})) {
    if (typeof value !== "number" || !Number.isFinite(value)) continue;
    if (id !== groupId && !SN.ancestors(ix, id).includes(groupId)) continue;
    out = out === undefined ? value : sum ? out + value : Math.max(out, value);
  }
  return out;
};
