// symnb viewer, part 9 of 12: which layout draws a set of open groups. The saved layout
// when the state carried one for these groups (part 6), else ELK's (part 2, in its worker),
// else the simple layered layout (part 2b): where ELK is not shipped (the saved view), while
// its source has not come from the kernel (then ELK lays the view out again when it comes),
// past ELK_MAX_BOXES, or when ELK fails. Each answer says which engine drew and why.

const LAYOUT_TIMEOUT_MS = 20000;
const ELK_WAIT_DEFAULT_MS = 2000;  // a first paint waits this long at most for ELK's source
const BIG_VIEW = 100;  // boxes and frames
const ELK_MAX_BOXES = 1000;  // a bigger view is laid out simply (see layoutFor)

SN.Arranger = class Arranger {
  // `options`: SN.mount's (elkWaitMs, failLayout); `elk`: an SN.ElkRunner or null;
  // `stored`: the state's saved layout; `later`/`cancel`: the view's timers;
  // `elkLate()`: called once when ELK's source comes after a layout went without it.
  constructor(ix, options, elk, stored, { later, cancel, elkLate }) {
    this.ix = ix;
    this.options = options;
    this.elk = elk;
    this.stored = stored;
    this.later = later;
    this.cancel = cancel;
    this.elkLate = elkLate;
    this.upgrading = false;
  }

  // Whether ELK's source is here, waiting up to elkWaitMs for it; when it comes later,
  // elkLate() lays the view out again by ELK (once), as the user left it.
  async elkCame() {
    const elk = this.elk;
    if (elk.arrived) return true;
    let timer = null;
    const came = await Promise.race([elk.source.then((text) => Boolean(text), () => false),
      new Promise((resolve) => { timer = this.later(() => resolve(false), this.options.elkWaitMs ?? ELK_WAIT_DEFAULT_MS); })]);
    this.cancel(timer);
    if (!came && !this.upgrading) {
      this.upgrading = true;
      elk.source.then((text) => { if (text) this.elkLate(); }, () => {});
    }
    return came;
  }

  // {geo} (the saved layout) or {laid, across} (laid-out region graphs), with engine, why
  // (what kept ELK from it, "" when nothing did) and nextBoxOf (model id -> box).
  async layoutFor(nextOpen) {
    const ix = this.ix, elk = this.elk;
    const nextBoxOf = SN.boxMap(ix, nextOpen).boxOf;
    const tree = SN.visibleTree(ix, nextOpen, nextBoxOf);
    const bundles = SN.boxEdges(ix, nextBoxOf);
    const { graphs, across } = SN.layoutGraphs(ix, tree, bundles);
    const kept = SN.storedGeometry(this.stored, nextOpen, graphs);
    if (kept) return { geo: kept, engine: "the saved layout", why: "", nextBoxOf };
    let laid, engine = "ELK layered", why = "";
    const failing = this.options.failLayout || "";  // tests: "elk" or "all"
    if (!elk && !failing) {  // the saved view: ELK is not saved with each notebook output
      return { laid: graphs.map((g) => SN.simpleLayout(g)), across, engine: "simple layered layout", why: "", nextBoxOf };
    }
    if (!failing && !(await this.elkCame())) {  // the live view, its kernel busy or gone
      return { laid: graphs.map((g) => SN.simpleLayout(g)), across, engine: "simple layered layout", nextBoxOf,
        why: "ELK's source has not come from the kernel yet (a busy kernel answers after its running cells); ELK lays the view out when it comes" };
    }
    // Past ELK_MAX_BOXES ELK takes tens of seconds (2,001 boxes: 11-15 s; a 1,502-box flat
    // view never finished): the simple layout draws it in under a second, and says so.
    const boxes = graphs.reduce((sum, g) => sum + SN.boxesIn(g), 0);
    if (!failing && boxes > ELK_MAX_BOXES) {
      return { laid: graphs.map((g) => SN.simpleLayout(g)), across, engine: "simple layered layout", nextBoxOf,
        why: `${boxes} boxes, past the ${ELK_MAX_BOXES} ELK lays out in seconds` };
    }
    try {
      if (failing) throw new Error(`forced failure (${failing})`);
      laid = await Promise.all(graphs.map((g) => elk.layout(SN.lighterGraph(g, BIG_VIEW), LAYOUT_TIMEOUT_MS)));
    } catch (err) {
      why = err && err.message ? err.message : String(err);
      if (failing === "all") throw new Error(`layout failed: ${why}; the simple layout was forced to fail too`);
      laid = graphs.map((g) => SN.simpleLayout(JSON.parse(JSON.stringify(g))));
      engine = "simple layered layout";
    }
    return { laid, across, engine, why, nextBoxOf };
  }
};
