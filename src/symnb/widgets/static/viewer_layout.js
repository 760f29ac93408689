// symnb viewer, part 2 of 12: layout. The visible boxes become ELK graphs (one per region:
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
  // The type first: a long op (`Elemwise{tanh,no_inplace}`) clipped at the box's width
  // would cut the shape off; the card has the whole op.
  const sub = n.op && n.op !== title ? `${type ? type + "  " : ""}${n.op}` : type || n.kind || "";
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
// A big view's options (SN.mount's `lighter`): one pass of crossing minimisation instead of
// seven, Brandes-Koepf's node placement instead of network simplex.
SN.BIG_VIEW_OPTIONS = { "elk.layered.thoroughness": "1", "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF" };

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

const LAYOUTS_KEPT = 32;

// The warm-up graph: three frames of a chain of `boxes` labelled boxes, a bundle between them.
SN.warmUpGraph = function warmUpGraph(options, boxes) {
  const frame = (f) => ({
    id: `w${f}`, layoutOptions: { "elk.padding": `[top=${FRAME_TOP},left=12,bottom=12,right=12]` },
    children: Array.from({ length: boxes }, (_, k) => ({ id: `w${f}_${k}`, width: 120, height: BOX_H })),
    edges: Array.from({ length: boxes - 1 }, (_, k) => ({ id: `w${f}e${k}`, sources: [`w${f}_${k}`], targets: [`w${f}_${k + 1}`],
      labels: [{ text: "float32 (64, 64)", width: 120, height: 16 }] })),
  });
  const edges = [0, 1].map((f) => ({ id: `wx${f}`, sources: [`w${f}_${boxes - 1}`], targets: [`w${f + 1}_0`] }));
  return { id: "warm-up", layoutOptions: { ...ROOT_OPTIONS, ...options }, children: [0, 1, 2].map(frame), edges };
};

// ELK in a worker built from its source text, or from a promise of it (the live view asks
// its kernel for the text while the model is decoded). start() resolves once the worker
// runs; a stop() before the text comes makes none. One layout at a time; a timeout or an
// error rejects (the worker is then thrown away and made again on the next call).
SN.ElkRunner = class ElkRunner {
  constructor(source) {
    this.source = Promise.resolve(source); this.worker = null; this.url = null; this.next = 0; this.stops = 0;
    this.done = new Map();
    this.arrived = false;  // the source's text is here
    this.source.then((text) => { this.arrived = Boolean(text); }, () => {});
  }
  start() {
    const stops = this.stops;
    return this.source.then((text) => {
      if (this.worker || stops !== this.stops) return;
      if (!text) throw new Error("no ELK source in this page");
      this.url = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
      this.worker = new Worker(this.url);
      this.worker.postMessage({ id: this.next++, cmd: "register", algorithms: ["layered"] });
      // A first layout warms ELK's code up (the browser compiles its hot paths as they run:
      // a 160-box view took 170 ms after one layout, 55 ms after ten). It runs while the
      // page decodes the model; warmUp() runs more while the worker is idle.
      this.warmUp(1, 10);
    });
  }
  warmUp(times, boxes) {
    if (!this.worker) return;
    for (let i = 0; i < times; i++) {
      const graph = SN.warmUpGraph(i % 2 ? SN.BIG_VIEW_OPTIONS : {}, boxes);  // both kinds of view
      this.worker.postMessage({ id: this.next++, cmd: "layout", graph, layoutOptions: {}, options: {} });
    }
  }
  layout(graph, timeoutMs) {
    // A region whose boxes did not change (the gradient while a forward group opens) is
    // not laid out again: its last layout, by the graph's text.
    const key = JSON.stringify(graph);
    if (this.done.has(key)) return Promise.resolve(JSON.parse(this.done.get(key)));
    return this.run(graph, timeoutMs).then((laid) => {
      if (this.done.size >= LAYOUTS_KEPT) this.done.delete(this.done.keys().next().value);
      this.done.set(key, JSON.stringify(laid));
      return laid;
    });
  }
  run(graph, timeoutMs) {
    return this.start().then(() => new Promise((resolve, reject) => {
      if (!this.worker) { reject(new Error("the layout worker was stopped")); return; }
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
    }));
  }
  stop() {
    this.stops += 1;
    if (this.worker) this.worker.terminate();
    if (this.url) URL.revokeObjectURL(this.url);
    this.worker = null; this.url = null;
  }
};

// A big view (past BIG_VIEW boxes) is laid out with one pass of ELK's crossing
// minimisation instead of seven, and Brandes-Koepf's node placement instead of network
// simplex: together a quarter of the time (bench/bench_viewer.py: 160 boxes, 190 ms to
// 90 ms warm), and the order the model gives (data-flow order) already leaves few
// crossings to remove. Small views keep the straighter placement.
SN.boxesIn = function boxesIn(graph) {
  let boxes = 0;
  const count = (n) => { boxes += 1; (n.children || []).forEach(count); };
  (graph.children || []).forEach(count);
  return boxes;
};
SN.lighterGraph = (graph, bigView) => (SN.boxesIn(graph) <= bigView ? graph
  : { ...graph, layoutOptions: { ...graph.layoutOptions, ...SN.BIG_VIEW_OPTIONS } });
