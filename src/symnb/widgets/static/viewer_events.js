// symnb viewer, part 11 of 12: the page's events, each handed to the controller (part 10)
// or, for panning, zooming, fit, the minimap and the panel toggles, to the camera (part 7).
// `on(target, type, fn, opts)` adds a listener that the view's destroy() removes;
// `disposers` takes what else destroy() must undo.

SN.listen = function listen(page, controller, camera, on, disposers) {
  const { search, zoomOut, zoomIn, fitButton, mapButton, cardButton, overlayMenu, hits, legendHost, viewport, mini } = page;
  const state = controller.state, ix = controller.ix;
  // Panning listens on the window only while the button is down: a view removed from the
  // page without destroy() (a saved output JupyterLab drops) leaves no listener behind.
  let drag = null, dragged = false;
  const dragMove = (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 4) dragged = true;
    if (dragged) camera.panTo(drag.tx + dx, drag.ty + dy);
  };
  const dragEnd = () => {
    drag = null;
    window.removeEventListener("mousemove", dragMove);
    window.removeEventListener("mouseup", dragEnd);
  };
  disposers.push(dragEnd);
  on(viewport, "mousedown", (e) => {
    if (e.target === mini) return;
    drag = { x: e.clientX, y: e.clientY, tx: camera.view.tx, ty: camera.view.ty }; dragged = false;
    window.addEventListener("mousemove", dragMove);
    window.addEventListener("mouseup", dragEnd);
  });
  // A click selects a box; a double click, or a click on the selected group, opens or
  // closes it; a click on an open group's title closes it.
  on(viewport, "click", (e) => {
    if (dragged) { dragged = false; return; }
    const box = e.target.closest && e.target.closest("g.symnb-node");
    if (box) {
      const id = box.dataset.id;
      if (ix.groups.has(id) && (e.detail > 1 || state.selected === id)) controller.toggle(id); else controller.select(id);
      return;
    }
    const title = e.target.closest && e.target.closest(".symnb-frame-title");
    if (title) controller.toggle(title.parentNode.dataset.group);
  });
  on(viewport, "dblclick", (e) => e.preventDefault());
  on(viewport, "wheel", (e) => {
    if (!e.ctrlKey && !e.metaKey) return;  // a plain wheel scrolls the notebook
    e.preventDefault();
    camera.zoomAt(e.deltaY < 0 ? 1.2 : 1 / 1.2, e.offsetX, e.offsetY);
  }, { passive: false });
  on(zoomIn, "click", () => camera.zoomMiddle(1.25));
  on(zoomOut, "click", () => camera.zoomMiddle(0.8));
  on(fitButton, "click", () => camera.fit());
  on(mapButton, "click", () => { camera.mapShown = !camera.mapShown; camera.apply(); });
  on(cardButton, "click", () => { camera.cardShown = !camera.cardShown; camera.apply(); });
  // The minimap: pressed or dragged on, the view centres on that point.
  const miniMove = (e) => {
    if (!camera.geo || !(e.buttons & 1) && e.type !== "click") return;
    const p = camera.miniPoint(e);
    camera.centreOnPoint(p.x, p.y);
    e.stopPropagation();
  };
  on(mini, "mousedown", miniMove); on(mini, "mousemove", miniMove); on(mini, "click", (e) => e.stopPropagation());
  on(search, "input", () => controller.searchSoon());
  on(search, "keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    controller.nextMatch();
  });
  on(hits, "click", (e) => { const b = e.target.closest(".symnb-hit"); if (b) controller.reveal(b.dataset.id); });
  on(legendHost, "click", (e) => { const b = e.target.closest(".symnb-legend-link"); if (b) controller.reveal(b.dataset.id); });
  on(overlayMenu, "change", () => controller.setOverlay(overlayMenu.value));
};
