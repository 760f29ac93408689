// symnb viewer, part 12 of 12: SN.mount, the view put together on a host element: its
// page (part 5), state (part 6), camera and rendering (parts 7, 8), layouts (part 9),
// controller (part 10) and events (part 11). Opening, closing, selecting, searching,
// panning, zooming and the overlays send no kernel message. Options:
//   model: the decoded view model; state: {open, selected, overlay} to start from;
//   elkSource: ELK's worker source (none: the simple layout), or elk: an SN.ElkRunner
//   (the live view's, started while its source comes; elkWaitMs: how long a layout waits
//   for that source before drawing simply, ELK's layout following); details(id, host): fills
//   the card's kernel part (a live kernel's heatmaps) or says what was not saved;
//   onState(state): told after each successful draw (the live view saves it, debounced);
//   the state holds the drawn layout (`layout`: its open groups and geometry), which a
//   view started from that state draws again instead of laying out anew (the saved view
//   opens at the live view's positions).
// Returns {ready, view, destroy}: `view` is what tests, benches and the Python API's commands
// drive; destroy() removes every listener, timer and worker it made.

const IDLE_WARM_UPS = 6;  // ELK layouts of 120 boxes run after the first paint (SN.ElkRunner.warmUp)

SN.mount = function mount(host, options) {
  // ELK's worker first: it reads its 1.6 MB script on its own thread while the model is indexed.
  const elk = options.elk || (options.elkSource ? new SN.ElkRunner(options.elkSource) : null);
  if (elk) elk.start().catch(() => { /* the first layout reports it */ });
  const ix = SN.indexModel(options.model);
  const disposers = [];
  const on = (target, type, fn, opts) => { target.addEventListener(type, fn, opts); disposers.push(() => target.removeEventListener(type, fn, opts)); };
  const timers = new Set();
  const later = (fn, ms) => { const t = setTimeout(() => { timers.delete(t); fn(); }, ms); timers.add(t); return t; };
  const cancel = (t) => { clearTimeout(t); timers.delete(t); };

  const page = SN.viewerPage(host, options.model, options.live);
  const state = new SN.ViewState(ix, options.model, options.state);
  page.overlayMenu.value = state.overlay;
  const camera = new SN.Camera(page, host);
  const renderer = new SN.Renderer(page, host, ix, options.model, camera);
  renderer.boxOf = SN.boxMap(ix, state.open).boxOf;
  let controller = null;
  const arranger = new SN.Arranger(ix, options, elk, state.stored, {
    later, cancel,
    // ELK's source came after the view was drawn simply: laid out again, as the user left it.
    elkLate: () => { if (!controller.destroyed) controller.show(state.open, state.selected, state.selected); },
  });
  controller = new SN.Controller({ ix, model: options.model, options, state, renderer, camera, arranger, page, host, later, cancel });
  SN.listen(page, controller, camera, on, disposers);

  const first = controller.show(state.open, state.selected, null).then((ok) => {
    if (ok && state.selected) controller.centreOnIfHidden();
    if (elk) later(() => elk.warmUp(IDLE_WARM_UPS, 40), 0);  // before the user's first click
    return ok;
  });
  return {
    ready: first,
    view: {  // for tests, benches and the Python-driven commands
      open: (g) => (state.open.has(g) ? Promise.resolve(true) : controller.toggle(g)),
      close: (g) => (state.open.has(g) ? controller.toggle(g) : Promise.resolve(true)),
      reveal: (id) => controller.reveal(id),
      select: (id) => controller.select(id),
      fit: () => camera.fit(),
      bringIntoView: (id) => controller.bringIntoView(id),
      zoomAt: (f, x, y) => camera.zoomAt(f, x, y),
      transform: () => ({ ...camera.view }),
      changeOpen: (add, remove, sel) => controller.changeOpen(add, remove, sel),
      state: () => state.brief(),
      index: () => ix,
      geometry: () => renderer.geo, boxOf: (id) => renderer.boxOf(id),
      failLayout: (mode) => { options.failLayout = mode; },
    },
    destroy() {
      controller.destroyed = true;
      controller.generation += 1;
      disposers.forEach((d) => d());
      timers.forEach((t) => clearTimeout(t));
      timers.clear();
      if (elk) elk.stop();
      host.replaceChildren();
      host.classList.remove("symnb-viewer");
    },
  };
};
