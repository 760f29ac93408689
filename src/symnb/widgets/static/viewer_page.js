// symnb viewer, part 5 of 12: the view's page. The toolbar (search box, zoom, fit, the
// minimap's and the card's toggles, the overlay menu, the status line), the search hits,
// the legend, the viewport (the SVG and the layer it draws in), the minimap and the card
// panel: DOM made once for SN.mount (part 12); the camera (part 7) and the renderer (part 8) draw into it.

SN.viewerPage = function viewerPage(host, model, live) {
  host.classList.add("symnb-viewer");
  const toolbar = SN.el("div", "symnb-toolbar");
  const search = SN.el("input", "symnb-search");
  search.type = "search";
  search.placeholder = "search (Enter: next)";
  search.title = "search names, ops and source lines (closed groups too); Enter: the next match";
  const found = SN.el("span", "symnb-found", "");
  const button = (text, title) => { const b = SN.el("button", "symnb-button", text); b.title = title; toolbar.append(b); return b; };
  toolbar.append(search, found);
  const zoomOut = button("\u2212", "zoom out"), zoomIn = button("+", "zoom in");
  const fitButton = button("fit", "show the whole picture (text stays 9 px or more; press again to go smaller)");
  // The minimap stands beside the view (never over the boxes it maps), shown only while
  // the picture is bigger than the view; this hides it (and shows it again).
  const mapButton = button("map", "hide the minimap");
  mapButton.classList.add("symnb-map-toggle");
  // The card panel folds away: the view then takes the whole width.
  const cardButton = button("card", "fold the card panel away (the view takes its width)");
  cardButton.classList.add("symnb-card-toggle");
  const overlayMenu = SN.el("select", "symnb-overlay");
  overlayMenu.append(new Option("no overlay", ""));
  for (const [name, o] of Object.entries(model.overlays || {})) overlayMenu.append(new Option(o.label || name, name));
  overlayMenu.title = "colour the boxes by a number per node";
  toolbar.append(overlayMenu);
  const status = SN.el("span", "symnb-status", "");
  toolbar.append(status);
  const hits = SN.el("div", "symnb-hits");
  const legendHost = SN.el("div", "symnb-legend");
  legendHost.hidden = true;
  const body = SN.el("div", "symnb-body");
  const viewport = SN.el("div", "symnb-viewport");
  const svg = SN.svg("svg", { class: "symnb-graph" });
  svg.append(SN.arrowDefs());
  const layer = SN.svg("g", { class: "symnb-layer" });
  svg.append(layer);
  const mini = SN.el("canvas", "symnb-minimap");
  mini.width = 180; mini.height = 120;
  viewport.append(svg);
  const cardHost = SN.el("div", "symnb-card");
  const side = SN.el("div", "symnb-side");
  side.append(mini, cardHost);
  body.append(viewport, side);
  const notSaved = (model.not_saved || []).length && !live
    ? SN.el("div", "symnb-not-saved", "not saved with the notebook: " + model.not_saved.join("; ")) : null;
  host.append(toolbar, hits, legendHost, body);
  if (notSaved) host.append(notSaved);

  return { search, found, zoomOut, zoomIn, fitButton, mapButton, cardButton, overlayMenu, status, hits, legendHost, viewport, layer, mini, cardHost, side };
};
