"""Helpers for the client-side viewer's browser tests: a hand-made view model (the
VIEWER_FORMAT.md contract: a 12-layer MLP's training function as i28-model groups it) and
a page that mounts the viewer on a model with no kernel (the saved viewer's situation,
plus ELK, which the live widget ships)."""

from __future__ import annotations

import json
from pathlib import Path

from symnb.widgets.viewer import elk_source, viewer_css, viewer_source


def mlp_model(layers: int = 12, name0: str = "x") -> dict:
    """A training function's view model: ``layer(x, W, b) = relu(dot(x, W) + b)`` x
    ``layers`` (a folded series; relu an opcall), a softmax cross-entropy, the gradient
    groups mirroring the layers, and the SGD updates."""
    nodes, edges, groups = [], [], []

    def node(kind, label, op=None, group=None, name=None, shape=(64, 32), **more):
        nid = f"n{len(nodes)}"
        nodes.append({"id": nid, "kind": kind, "label": label, "op": op or label, "name": name,
                      "group": group, "line": f"mlp.py:{len(nodes) + 1}", "code": f"{label}(...)",
                      "outs": [{"dtype": "float32", "shape": list(shape)}],
                      "summary": "mean 0.1 std 0.9", "failing": False, **more})
        return nid

    def edge(src, dst):
        edges.append({"src": src, "out": 0, "dst": dst})

    def group(gid, label, kind, parent=None, region="forward", **more):
        groups.append({"id": gid, "parent": parent, "label": label, "kind": kind, "region": region,
                       "mirrors": None, "series": None, **more})
        return gid

    x = node("input", name0, "input", name=name0)
    y = node("input", "y", "input", name="y", shape=(64,))
    group("gs", f"layer() \u00d7{layers}", "series", series={"count": layers, "items": [f"gl{i}" for i in range(layers)]})
    params, h, acts = [], x, []
    for i in range(layers):
        g = group(f"gl{i}", f"layer(W{i})", "call", parent="gs")
        W = node("shared", f"W{i}", "shared", name=f"W{i}", shape=(32, 32))
        b = node("shared", f"b{i}", "shared", name=f"b{i}", shape=(32,))
        params += [W, b]
        d = node("op", "dot", "Dot", group=g)
        edge(h, d); edge(W, d)
        a = node("op", "add", "Add", group=g)
        edge(d, a); edge(b, a)
        r = group(f"gr{i}", "relu", "opcall", parent=g)
        m = node("op", "maximum", "Maximum", group=r)
        c = node("constant", "0", "constant", group=r, shape=())
        edge(a, m); edge(c, m)
        acts.append(m)
        h = m
    group("gloss", "softmax cross-entropy", "opcall")
    sm = node("op", "softmax", "Softmax", group="gloss")
    edge(h, sm)
    ce = node("op", "crossentropy", "CrossEntropy", group="gloss", name="loss", shape=())
    edge(sm, ce); edge(y, ce)
    group("gg", "grad(loss)", "grad", region="gradient")
    back = ce
    grads = []
    for i in reversed(range(layers)):
        g = group(f"ggl{i}", f"layer(W{i}) gradient", "grad", parent="gg", region="gradient", mirrors=f"gl{i}")
        gd = node("op", "relu_grad", "ReluGrad", group=g)
        edge(back, gd); edge(acts[i], gd)
        gw = node("op", "dot", "Dot", group=g, name=f"dW{i}")
        edge(gd, gw)
        edge(acts[i - 1] if i else x, gw)
        gb = node("op", "sum", "Sum", group=g, name=f"db{i}")
        edge(gd, gb)
        gx = node("op", "dot", "Dot", group=g)
        edge(gd, gx); edge(params[2 * i], gx)
        grads += [(i, gw, gb)]
        back = gx
    group("gu", "updates (SGD)", "updates", region="updates")
    for i, gw, gb in grads:
        for p, gr in ((params[2 * i], gw), (params[2 * i + 1], gb)):
            u = node("op", "sub", "Sub", group="gu", name=f"new {nodes[int(p[1:])]['name']}")
            edge(p, u); edge(gr, u)
    overlays = {"max_abs": {"label": "max |value|", "source": "test values", "unit": "",
                            "values": {n["id"]: float(k % 7) + 0.5 for k, n in enumerate(nodes)}}}
    return {"format": 1, "title": "train", "nodes": nodes, "edges": edges, "groups": groups,
            "open": [], "overlays": overlays, "not_saved": []}


def viewer_page(path: Path, model: dict, state: dict | None = None, elk: bool = True,
                options: str = "", width: int = 1100) -> Path:
    """Write a page mounting the viewer on ``model`` (as JSON text, the way it travels)
    in a body ``width`` px wide; ``window.mounted`` is the mount's handle,
    ``window.ready`` resolves once drawn."""
    text = json.dumps(json.dumps(model))
    source = viewer_source().replace("</", "<\\/")
    elk_text = json.dumps(elk_source() if elk else "").replace("</", "<\\/")
    page = f"""<!doctype html><html><head><meta charset="utf-8"><style>{viewer_css()}
body {{ margin: 8px; width: {width}px; }}</style></head><body><div id="host"></div>
<script>{source}
window.ELK_SOURCE = {elk_text};
window.ready = SymnbViewer.decodeModel({text}).then((model) => {{
  window.mounted = SymnbViewer.mount(document.getElementById("host"),
    {{ model, state: {json.dumps(state)}, elkSource: window.ELK_SOURCE {options} }});
  return window.mounted.ready;
}});
</script></body></html>"""
    path.write_text(page, encoding="utf-8")
    return path


# A stand-in for anywidget's model, for the widget's own module (`render`): it records
# what the view sends in `sent` and answers the page's ELK request as the kernel's
# GraphView does, with `elk` (null: no kernel, no answer) after `answerMs` (a busy kernel
# answers late); `deliver(msg)` hands the view a
# message from the kernel (a Python-side command). A JS expression.
STAND_IN_MODEL = """((data, elk, sent, answerMs = 10) => {
  const handlers = [];
  return {
    get: (k) => ({ model_data: data, view_state: {}, snapshot_key: "k1", header: "", footer: "" })[k],
    on: (name, fn) => { if (name === "msg:custom") handlers.push(fn); },
    off: (name, fn) => { const i = handlers.indexOf(fn); if (i >= 0) handlers.splice(i, 1); },
    send: (m) => {
      sent.push(m);
      if (m.elk && elk !== null) setTimeout(() => handlers.slice().forEach((h) => h({ elk_source: elk })), answerMs);
    },
    set: () => {}, save_changes: () => {},
    deliver: (msg) => handlers.slice().forEach((h) => h(msg)),
  };
})"""
