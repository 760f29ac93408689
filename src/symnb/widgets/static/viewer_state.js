// symnb viewer, part 6 of 7: the view's state, as data. What a view starts from (the
// saved or live state, else the model's own defaults, kept to what the model holds), and
// the layout a saved state carries, drawn again while it draws the same boxes. SN.mount
// (part 7) changes the state only after a successful draw.

// A set of open groups as a key (the same groups, in any order: the same key).
SN.openKey = (set) => JSON.stringify([...set].sort());

// {open: Set, selected, overlay, layout}: `state` ({open, selected, overlay, layout}, any
// of them missing) read against the model: unknown groups, nodes and overlays dropped.
SN.startState = function startState(ix, model, state) {
  const start = state || {};
  const overlays = model.overlays || {};
  return {
    open: new Set((start.open || model.open || []).filter((g) => ix.groups.has(g))),
    selected: start.selected && (ix.nodes.has(start.selected) || ix.groups.has(start.selected)) ? start.selected : "",
    overlay: start.overlay && overlays[start.overlay] ? start.overlay : "",
    layout: start.layout && Array.isArray(start.layout.open) && start.layout.geometry ? start.layout : null,
  };
};

// The saved layout's geometry when it draws these open groups: the same groups, the same
// boxes (the region graphs `graphs` about to be laid out); else null.
SN.storedGeometry = function storedGeometry(stored, nextOpen, graphs) {
  if (!stored || SN.openKey(nextOpen) !== SN.openKey(stored.open)) return null;
  const ids = new Set(), walk = (n) => (n.children || []).forEach((c) => { ids.add(c.id); walk(c); });
  graphs.forEach(walk);
  const g = stored.geometry;
  const drawn = [...Object.keys(g.boxes || {}), ...Object.keys(g.frames || {})];
  if (drawn.length !== ids.size || !drawn.every((id) => ids.has(id))) return null;
  return SN.unpackGeometry(g);
};
