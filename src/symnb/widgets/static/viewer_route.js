// symnb viewer, part 3 of 12: the regions placed together.
// Each region is laid out on its own (the spine stays straight whatever the gradient does).
// Side by side when they fit the width the view has (`wrapWidth`): a side region is then
// moved up or down so that its groups sit level with the forward groups they mirror, and
// the bundles joining two regions are routed here: out of the source box's side, down or
// up a lane of the gutter between the regions, into the target box's side, through free
// space only (never over a box). Wider than that, the regions are stacked (forward, then
// gradient, then updates), the bundles running down a bus of lanes on the right
// (SN.stackedGeometry): a first view stays whole at legible text in a notebook cell.
// A bundle's count is its label.

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

// `wrapWidth`: the width the view has (at the text's full size); none: side by side.
SN.geometry = function geometry(graphs, across, ix, wrapWidth) {
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
  if (parts.length > 1 && geo.width > (wrapWidth ?? Infinity)) {
    parts.forEach((p) => { p.dy = 0; });
    return SN.stackedGeometry(parts, bundles, home);
  }
  SN.routeAcross(geo, plan, parts);
  geo.arrangement = "side by side";
  return geo;
};

const ROW_GAP = 36;  // between two stacked regions: the lower one's title, the bus's turns

// The regions one under the other (each at the left), the bundles joining two of them
// out of their source box's right side, along a lane of the bus right of the regions,
// into their target box's right side: one lane per target box (the bundles into one box
// share it), lanes whose spans do not overlap shared. The counts stand left of the bus.
SN.stackedGeometry = function stackedGeometry(parts, bundles, home) {
  let top = 0, right = 0;
  for (const p of parts) { p.dx = 0; p.dy = top; top += p.h + ROW_GAP; right = Math.max(right, p.w); }
  const boxes = new Map(), frames = new Map(), edges = [], regions = [];
  for (const p of parts) {
    for (const [id, r] of p.boxes) boxes.set(id, shifted(r, 0, p.dy));
    for (const [id, r] of p.frames) frames.set(id, shifted(r, 0, p.dy));
    for (const e of p.edges) {
      edges.push({ ...e, points: e.points.map((q) => ({ x: q.x, y: q.y + p.dy })), labels: e.labels.map((l) => shifted(l, 0, p.dy)) });
    }
    regions.push({ region: p.region, x: 0, y: p.dy, w: p.w, h: p.h });
  }
  const geo = { boxes, frames, edges, regions, width: Math.max(right, 1), height: Math.max(top - ROW_GAP, 1), arrangement: "stacked" };
  // Each bundle's lines leave (enter) a box's right side spread over its height.
  const sides = new Map();
  const mark = (key, token, y) => { if (!sides.has(key)) sides.set(key, new Map()); sides.get(key).set(token, y); };
  const plans = bundles.map((b) => ({ b, s: boxes.get(b.src), d: boxes.get(b.dst), label: `\u00d7${b.count}` }));
  for (const p of plans) { mark("out:" + p.b.src, p, p.d.y); mark("in:" + p.b.dst, p.b.dst, p.s.y); }
  const sideY = (key, token, r) => {
    const list = [...sides.get(key)].sort((m, n) => m[1] - n[1]).map((m) => m[0]);
    return r.y + (r.h * (list.indexOf(token) + 1)) / (list.length + 1);
  };
  // The labels of one source's bundles side by side, left of the bus.
  let labelRoom = 0;
  const bySource = new Map();
  for (const p of plans) { if (!bySource.has(p.b.src)) bySource.set(p.b.src, []); bySource.get(p.b.src).push(p); }
  for (const list of bySource.values()) {
    let room = 0;
    for (const p of list.sort((m, n) => m.d.y - n.d.y)) { p.labelOffset = room; room += p.label.length * CHAR + 6; }
    labelRoom = Math.max(labelRoom, room + 4);
  }
  const trunks = new Map();  // target box -> its span along the bus
  for (const p of plans) {
    p.ys = sideY("out:" + p.b.src, p, p.s); p.yd = sideY("in:" + p.b.dst, p.b.dst, p.d);
    const t = trunks.get(p.b.dst) || { lo: Infinity, hi: -Infinity };
    t.lo = Math.min(t.lo, p.ys - 30, p.yd - 30); t.hi = Math.max(t.hi, p.ys + 30, p.yd + 30);
    trunks.set(p.b.dst, t);
  }
  const ends = [];
  for (const [, t] of [...trunks].sort((m, n) => m[1].lo - n[1].lo)) {  // the fewest lanes
    let lane = ends.findIndex((end) => end < t.lo);
    if (lane < 0) { lane = ends.length; ends.push(0); }
    ends[lane] = t.hi; t.lane = lane;
  }
  const bus = right + GUTTER_PAD + labelRoom;
  for (const p of plans) {
    const x = bus + LANE * trunks.get(p.b.dst).lane, skip = new Set([p.b.src, p.b.dst]);
    const head = SN.sideRoute(geo, p.s, p.ys, true, x, skip);
    const tail = SN.sideRoute(geo, p.d, p.yd, true, x, skip).reverse();
    const points = [...head, ...tail];
    const y = head[head.length - 1].y;
    geo.edges.push({ id: "across:" + p.b.id, src: p.b.src, dst: p.b.dst, across: true, count: p.b.count, type: p.b.type,
      points, labels: [{ text: p.label, x: right + 4 + p.labelOffset, y: y - 15, w: p.label.length * CHAR, h: 14 }] });
  }
  geo.width = bus + LANE * Math.max(ends.length, 1) + GUTTER_PAD;
  return geo;
};

// Whether an axis-parallel segment passes through the inside of a box (besides `skip`),
// or through the title row of a frame holding neither of the `skip` boxes (an edge drawn
// over "layer() x12 −" hides the title that closes it).
SN.hitsBox = function hitsBox(geo, a, b, skip) {
  const x0 = Math.min(a.x, b.x), x1 = Math.max(a.x, b.x), y0 = Math.min(a.y, b.y), y1 = Math.max(a.y, b.y);
  const inside = (r) => x1 > r.x + 1 && x0 < r.x + r.w - 1 && y1 > r.y + 1 && y0 < r.y + r.h - 1;
  for (const [id, r] of geo.boxes) if (!skip.has(id) && inside(r)) return true;
  const ends = [...skip].map((id) => geo.boxes.get(id)).filter(Boolean);
  for (const f of geo.frames.values()) {
    const holds = ends.some((r) => r.x >= f.x && r.y >= f.y && r.x + r.w <= f.x + f.w && r.y + r.h <= f.y + f.h);
    if (!holds && inside({ x: f.x, y: f.y, w: f.w, h: TITLE_ROW })) return true;
  }
  return false;
};
const TITLE_ROW = 26;  // a frame's title row (its text at y + 19: viewer_draw.js)

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

// A drawn geometry as plain JSON (the saved state keeps the live view's layout: the saved
// view opens at the positions the live one had, ELK not being saved) and back.
const r1 = (v) => Math.round(v * 10) / 10;
SN.packGeometry = function packGeometry(geo) {
  const rects = (m) => Object.fromEntries([...m].map(([id, r]) => [id, [r1(r.x), r1(r.y), r1(r.w), r1(r.h), r.region || ""]]));
  return {
    width: r1(geo.width), height: r1(geo.height), arrangement: geo.arrangement || "",
    regions: geo.regions.map((r) => [r.region, r1(r.x), r1(r.y), r1(r.w), r1(r.h)]),
    boxes: rects(geo.boxes), frames: rects(geo.frames),
    edges: geo.edges.map((e) => ({ id: e.id, src: e.src, dst: e.dst, across: e.across || false, count: e.count, type: e.type,
      points: e.points.flatMap((p) => [r1(p.x), r1(p.y)]), labels: e.labels.map((l) => [l.text, r1(l.x), r1(l.y), r1(l.w), r1(l.h)]) })),
  };
};

SN.unpackGeometry = function unpackGeometry(data) {
  const rects = (o) => new Map(Object.entries(o || {}).map(([id, [x, y, w, h, region]]) => [id, { x, y, w, h, region }]));
  const pairs = (list) => { const out = []; for (let i = 0; i + 1 < list.length; i += 2) out.push({ x: list[i], y: list[i + 1] }); return out; };
  return {
    width: data.width, height: data.height, arrangement: data.arrangement,
    regions: (data.regions || []).map(([region, x, y, w, h]) => ({ region, x, y, w, h })),
    boxes: rects(data.boxes), frames: rects(data.frames),
    edges: (data.edges || []).map((e) => {
      const edge = { ...e, points: pairs(e.points || []), labels: (e.labels || []).map(([text, x, y, w, h]) => ({ text, x, y, w, h })) };
      if (!e.across) { delete edge.across; delete edge.count; delete edge.type; }
      return edge;
    }),
  };
};
