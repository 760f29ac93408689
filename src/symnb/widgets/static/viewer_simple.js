// symnb viewer, part 2b: the simple layered layout, used where ELK is not (the saved view)
// and when ELK fails or times out. Same input and output shape as ELK's JSON. Each compound
// is laid out inside out, Sugiyama's way in small: layers by longest path; a link spanning
// several layers gets a thin placeholder in each layer between (so it runs in a lane of its
// own, never over a box); within a layer the boxes are ordered by the barycentre of their
// neighbours (a few sweeps down and up: fewer crossings); each gap between two layers holds
// the edges' labels (in rows, never over each other) and the horizontal runs of the edges
// (one track per source fanning out, else per target: runs of edges that share neither
// end never lie on each other). A container
// that flows up (the gradient) is laid out downwards and mirrored.

const GAP_X = 24, DUMMY_W = 8, DUMMY_GAP = 10, LABEL_H = 16, TRACK = 8;

SN.simpleLayout = function simpleLayout(root) {
  const parentOf = new Map(), byId = new Map();
  const walk = (n) => (n.children || []).forEach((c) => { parentOf.set(c.id, n); byId.set(c.id, c); walk(c); });
  walk(root);
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
    const links = [];
    for (const e of container.edges || []) {
      const s = childHolding(container, e.sources[0]), d = childHolding(container, e.targets[0]);
      if (s && d && s !== d) links.push({ e, s, d });
    }
    const own = container.layoutOptions && container.layoutOptions["elk.direction"];
    const layer = own === "RIGHT" ? new Map(kids.map((k, i) => [k.id, i]))  // unlinked boxes: a column
      : longestPath(kids, links);
    const rows = orderedRows(kids, links, layer);
    placeRows(container, top, rows, upward(container), byId, parentOf);
  };
  lay(root, 12);
  return root;
};

// Layer of each child: the longest path to it over the links, in topological order (Kahn's);
// a link closing a cycle is left out.
function longestPath(kids, links) {
  const layer = new Map(kids.map((k) => [k.id, 0]));
  const out = new Map(kids.map((k) => [k.id, new Set()])), waiting = new Map(kids.map((k) => [k.id, 0]));
  for (const { s, d } of links) {
    if (!out.get(s).has(d)) { out.get(s).add(d); waiting.set(d, waiting.get(d) + 1); }
  }
  const done = new Set();
  let cursor = 0;
  while (done.size < kids.length) {
    let next = kids.find((k) => !done.has(k.id) && waiting.get(k.id) === 0);
    if (!next) { while (done.has(kids[cursor].id)) cursor++; next = kids[cursor]; }  // a cycle: its first child
    done.add(next.id);
    for (const d of out.get(next.id)) {
      if (done.has(d)) continue;
      waiting.set(d, waiting.get(d) - 1);
      layer.set(d, Math.max(layer.get(d), layer.get(next.id) + 1));
    }
  }
  // A source (an input, a constant) sits in the layer just above its first reader, not at
  // the top with a long edge down (as ELK's network-simplex layering places it).
  for (const k of kids) {
    const reads = [...out.get(k.id)];
    if (!reads.length || links.some((l) => l.d === k.id)) continue;
    layer.set(k.id, Math.max(0, Math.min(...reads.map((d) => layer.get(d))) - 1));
  }
  return layer;
}

// The rows, top down: each child, and a placeholder for each layer a link passes; each link's
// chain of items. Ordered by barycentre sweeps (the model's order breaks ties).
function orderedRows(kids, links, layer) {
  const rows = [];
  const item = new Map();
  const add = (it) => { (rows[it.layer] = rows[it.layer] || []).push(it); return it; };
  for (const k of kids) item.set(k.id, add({ id: k.id, node: k, width: k.width, height: k.height, layer: layer.get(k.id) }));
  const chains = links.map((link, i) => {
    const a = layer.get(link.s), b = layer.get(link.d);
    if (b <= a) return { link, items: null };  // against the layers (a cycle): routed round
    const items = [item.get(link.s)];
    for (let r = a + 1; r < b; r++) items.push(add({ id: `~${i}:${r}`, width: DUMMY_W, height: 0, layer: r, dummy: true }));
    items.push(item.get(link.d));
    return { link, items };
  });
  for (let r = 0; r < rows.length; r++) rows[r] = rows[r] || [];
  const above = new Map(), below = new Map();
  const push = (m, k, v) => { if (!m.has(k)) m.set(k, []); m.get(k).push(v); };
  for (const c of chains) if (c.items) c.items.forEach((it, j) => { if (j) { push(above, it, c.items[j - 1]); push(below, c.items[j - 1], it); } });
  const centre = new Map();
  const place = () => {
    const width = Math.max(0, ...rows.map(rowWidth));
    for (const row of rows) {
      let x = (width - rowWidth(row)) / 2;
      row.forEach((it, j) => { if (j) x += spacing(row[j - 1], it); it.x = x; centre.set(it, x + it.width / 2); x += it.width; });
    }
  };
  const mean = (list) => list.reduce((s, it) => s + centre.get(it), 0) / list.length;
  for (let pass = 0; pass < 4; pass++) {
    const down = pass % 2 === 0, side = down ? above : below;
    const order = rows.map((_, r) => r);
    if (!down) order.reverse();
    for (const r of order.slice(1)) {
      place();
      const key = (it) => (side.has(it) ? mean(side.get(it)) : centre.get(it));
      rows[r] = rows[r].map((it, j) => [key(it), j, it]).sort((p, q) => p[0] - q[0] || p[1] - q[1]).map((p) => p[2]);
    }
  }
  place();
  straighten(rows, chains, above, centre);
  return { rows, chains, item };
}

// Each row, top down, moves under what feeds it (keeping its order and spacing): a box
// under the source of its data path (the edge layoutGraphs marks straight: a layer under
// the layer before), else under the mean of its sources; the spine then runs straight
// instead of each row being centred on its own width.
function straighten(rows, chains, above, centre) {
  const spine = new Map();
  for (const c of chains) {
    const straight = c.items && c.link.e.layoutOptions && c.link.e.layoutOptions["elk.layered.priority.straightness"];
    if (straight) c.items.forEach((it, j) => { if (j) spine.set(it, c.items[j - 1]); });
  }
  for (const row of rows.slice(1)) {
    const want = row.map((it) => (spine.has(it) ? centre.get(spine.get(it))
      : above.has(it) ? above.get(it).reduce((s, a) => s + centre.get(a), 0) / above.get(it).length : centre.get(it)) - it.width / 2);
    // Packed left to right from where each wants to be, then the row as a whole moved
    // back by the mean push, so that pushes do not all go one way.
    let x = -Infinity;
    const got = row.map((it, j) => { x = Math.max(want[j], j ? x + row[j - 1].width + spacing(row[j - 1], it) : want[j]); return x; });
    const back = got.reduce((s, g, j) => s + g - want[j], 0) / row.length;
    row.forEach((it, j) => { it.x = got[j] - back; centre.set(it, it.x + it.width / 2); });
  }
  const least = Math.min(...rows.flat().map((it) => it.x));
  for (const it of rows.flat()) { it.x -= least; centre.set(it, it.x + it.width / 2); }
}

const spacing = (a, b) => (a.dummy || b.dummy ? DUMMY_GAP : GAP_X);
const rowWidth = (row) => row.reduce((s, it, j) => s + it.width + (j ? spacing(row[j - 1], it) : 0), 0);

// Greedy interval colouring: the fewest levels with no two overlapping spans on one level.
function levels(spans) {
  const ends = [];
  for (const s of [...spans].sort((p, q) => p.lo - q.lo)) {
    let level = ends.findIndex((end) => end < s.lo);
    if (level < 0) { level = ends.length; ends.push(0); }
    ends[level] = s.hi; s.level = level;
  }
  return ends.length;
}

// Heights of the rows and gaps, the edges' points and labels, the container's size; then the
// mirror image for a container that flows up.
function placeRows(container, top, { rows, chains, item }, flip, byId, parentOf) {
  const left = 12;
  // Where an edge leaves or enters: the box itself, or one deep inside a child frame (its
  // place in this container's downward frame: mirrored inside the child when flipping).
  const rectOf = (kidId, id) => {
    const kid = item.get(kidId);
    let ox = 0, oy = 0;
    for (let cur = id; cur !== kidId; cur = parentOf.get(cur).id) { const n = byId.get(cur); ox += n.x || 0; oy += n.y || 0; }
    const n = byId.get(id);
    return { x: left + kid.x + ox, w: n.width, h: n.height, oy: flip ? kid.height - oy - n.height : oy, kid };
  };
  // Each gap's labels (first segment of an edge, beside its source) and tracks (one per target).
  const gaps = rows.map(() => ({ labels: [], tracks: new Map() }));
  const seen = new Set();
  const plans = [], runs = [];
  for (const c of chains) {
    const { e, s, d } = c.link;
    const from = rectOf(s, e.sources[0]), to = rectOf(d, e.targets[0]);
    const plan = { e, from, to, items: c.items, runs: [] };
    plans.push(plan);
    const label = (e.labels || [])[0];
    const key = e.sources[0] + "\u0000" + (label ? label.text : "");
    if (label && !seen.has(key)) {  // one label per source and text: the edges share the line there
      seen.add(key);
      const gap = gaps[item.get(s).layer];
      if (gap) gap.labels.push(plan.labelSpan = { lo: from.x + from.w / 2 + 4, hi: from.x + from.w / 2 + 4 + label.width + 4, label });
    } else if (label) e.labels = [];
    if (!c.items) continue;
    c.items.forEach((it, j) => {
      if (!j) return;
      const a = j === 1 ? from.x + from.w / 2 : left + c.items[j - 1].x + c.items[j - 1].width / 2;
      const b = j === c.items.length - 1 ? to.x + to.w / 2 : left + it.x + it.width / 2;
      const run = { gap: c.items[j - 1].layer, a, b, from: j === 1 ? e.sources[0] : c.items[j - 1].id,
        into: j === c.items.length - 1 ? e.targets[0] : it.id };
      plan.runs.push(run);
      if (Math.abs(a - b) >= 0.5) runs.push(run);
    });
  }
  // A box's runs fanning out in one gap share its track (a bus out of it, the way they
  // share the line down from it); the other runs into one box share that box's track.
  const fanning = new Map();
  for (const run of runs) fanning.set(run.gap + "\u0000" + run.from, (fanning.get(run.gap + "\u0000" + run.from) || 0) + 1);
  for (const run of runs) {
    run.key = fanning.get(run.gap + "\u0000" + run.from) > 1 ? "from:" + run.from : "into:" + run.into;
    const tracks = gaps[run.gap].tracks;
    const t = tracks.get(run.key) || { lo: Infinity, hi: -Infinity };
    t.lo = Math.min(t.lo, run.a, run.b) - 2; t.hi = Math.max(t.hi, run.a, run.b) + 2;
    tracks.set(run.key, t);
  }
  gaps.forEach((g) => { g.labelRows = levels(g.labels); g.trackCount = levels([...g.tracks.values()]); });
  const rowTop = [];
  let y = top;
  rows.forEach((row, r) => {
    rowTop[r] = y;
    const h = Math.max(0, ...row.filter((it) => !it.dummy).map((it) => it.height));
    const g = gaps[r];
    g.top = y + h;
    g.height = Math.max(30, 6 + LABEL_H * g.labelRows + TRACK * (g.trackCount + 1) + 6);
    y = g.top + (r < rows.length - 1 ? g.height : 0);
    for (const it of row) if (!it.dummy) { it.node.x = left + it.x; it.node.y = rowTop[r]; }
  });
  const height = y + 12;
  const trackY = (r, key) => { const g = gaps[r]; return g.top + 6 + LABEL_H * g.labelRows + TRACK * (g.tracks.get(key).level + 1); };
  // The boxes and frames inside the child frames, in this container's downward frame.
  const inner = [];
  for (const it of item.values()) {
    const visit = (n) => (n.children || []).forEach((c) => {
      const r = rectOf(it.id, c.id);
      inner.push({ id: c.id, frame: !!(c.children && c.children.length), x: r.x, y: it.node.y + r.oy, w: r.w, h: r.h });
      visit(c);
    });
    visit(it.node);
  }
  let right = left + Math.max(0, ...rows.flat().map((it) => it.x + it.width));
  let lanes = 0;
  for (const p of plans) {
    const start = { x: p.from.x + p.from.w / 2, y: p.from.kid.node.y + p.from.oy + p.from.h };
    const end = { x: p.to.x + p.to.w / 2, y: p.to.kid.node.y + p.to.oy };
    let bends = [];
    if (p.items) {
      for (const run of p.runs) {
        if (Math.abs(run.a - run.b) < 0.5) continue;
        const ty = trackY(run.gap, run.key);
        bends.push({ x: run.a, y: ty }, { x: run.b, y: ty });
      }
    } else {  // against the layers: out below, up a lane on the right, in from above
      const x = right + 10 + TRACK * lanes++;
      const out = gaps[p.from.kid.layer].top + 4, into = rowTop[p.to.kid.layer] - 4;
      bends = [{ x: start.x, y: out }, { x, y: out }, { x, y: into }, { x: end.x, y: into }];
    }
    if (p.items) bends = aroundInside(p, start, end, bends, inner, gaps);
    p.e.sections = [{ startPoint: start, endPoint: end, bendPoints: bends }];
    if (p.labelSpan) {
      const g = gaps[p.from.kid.layer];
      Object.assign(p.labelSpan.label, { x: p.labelSpan.lo, y: g.top + 4 + LABEL_H * p.labelSpan.level });
      right = Math.max(right, p.labelSpan.hi);
    }
  }
  container.width = Math.max(container.width || 0, right + (lanes ? 10 + TRACK * lanes : 0) + 12);
  container.height = Math.max(container.height || 0, height);
  if (flip) mirror(container, top, height - 12);
}

// An edge out of (into) a box deep inside a child frame: where the straight way down from it
// (into it) would cross the boxes below (above) it in that frame, it goes along the frame's
// right (left) padding and crosses over in the first free gap next to the box.
function aroundInside(p, start, end, bends, inner, gaps) {
  const skip = new Set([p.e.sources[0], p.e.targets[0]]);
  const hit = (a, b) => inner.some((r) => !r.frame && !skip.has(r.id) && segmentHits(a, b, r));
  const pts = () => [start, ...bends, end];
  const outer = (kid) => ({ x: kid.node.x, y: kid.node.y, w: kid.node.width, h: kid.node.height });
  // Candidate gaps: just past the box, then past each frame holding it inside the child.
  const ways = (id, kid, below) => {
    const box = inner.find((r) => r.id === id);
    const list = box ? [box, ...inner.filter((r) => r.frame && r.x <= box.x && r.y <= box.y &&
      r.x + r.w >= box.x + box.w && r.y + r.h >= box.y + box.h).sort((a, b) => (below ? a.y + a.h - b.y - b.h : b.y - a.y))] : [];
    return list.map((r) => (below ? r.y + r.h + 6 : r.y - 6));
  };
  if (p.to.kid.node.id !== p.e.targets[0]) {
    const last = pts()[pts().length - 2];
    if (hit(last, end)) {
      const D = outer(p.to.kid), lane = D.x + 5, top = bends.length ? last.y : D.y - 6;
      const y = ways(p.e.targets[0], p.to.kid, false).find((yy) => !hit({ x: lane, y: yy }, { x: end.x, y: yy }) &&
        !hit({ x: end.x, y: yy }, end)) ?? end.y - 6;
      const keep = bends.length ? bends.slice(0, -1) : [{ x: start.x, y: top }];
      bends = [...keep, { x: lane, y: top }, { x: lane, y }, { x: end.x, y }];
    }
  }
  if (p.from.kid.node.id !== p.e.sources[0]) {
    const next = pts()[1];
    if (hit(start, next)) {
      const S = outer(p.from.kid), lane = S.x + S.w - 5, out = S.y + S.h + 4;
      const y = ways(p.e.sources[0], p.from.kid, true).find((yy) => !hit({ x: start.x, y: yy }, { x: lane, y: yy }) &&
        !hit(start, { x: start.x, y: yy })) ?? start.y + 6;
      bends = [{ x: start.x, y }, { x: lane, y }, { x: lane, y: out }, { x: next.x === start.x ? start.x : lane, y: out }, ...bends];
    }
  }
  return bends;
}

// Whether the axis-parallel segment a-b passes through the inside of rectangle r.
const segmentHits = (a, b, r) => Math.max(a.x, b.x) > r.x + 1 && Math.min(a.x, b.x) < r.x + r.w - 1 &&
  Math.max(a.y, b.y) > r.y + 1 && Math.min(a.y, b.y) < r.y + r.h - 1;

// Mirror a container's contents top to bottom inside its padding band [top, bottom].
function mirror(container, top, bottom) {
  const flipY = (y) => top + bottom - y;
  for (const k of container.children || []) k.y = flipY(k.y) - k.height;
  for (const e of container.edges || []) {
    for (const s of e.sections || []) {
      s.startPoint.y = flipY(s.startPoint.y); s.endPoint.y = flipY(s.endPoint.y);
      s.bendPoints.forEach((p) => { p.y = flipY(p.y); });
    }
    for (const l of e.labels || []) if (l.y !== undefined) l.y = flipY(l.y) - l.height;
  }
}
