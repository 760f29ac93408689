"""The client-side graph viewer's page parts: its script, style and saved form.

The viewer (``static/viewer_*.js``, six plain scripts sharing one scope) runs in two
places from the same source:

- live, as the anywidget front end of :class:`~symnb.widgets.explorer.GraphExplorer`
  (:func:`widget_esm`), with ELK (``static/elk-worker.min.js``, elkjs, EPL-2.0, built by
  ``js/build.sh``) in a web worker made from a Blob URL of its text. The module holds no
  ELK: anywidget saves the module with every view's widget state, and ELK's 1.6 MB there
  grew a notebook by that much per view. The first view on a page asks its kernel for
  ELK's source (``{"elk": true}``, answered ``{"elk_source": ...}``); every view on the page
  shares that one answer. With no kernel to answer (widget state restored without one)
  the view lays out with the simple layout and says why;
- saved, as a ``<script>`` in the snapshot's ``text/html`` (:func:`saved_viewer_html`),
  which boots the same viewer on the embedded model where a page runs scripts (trusted
  JupyterLab and Notebook 7, VS Code, nbconvert's HTML) -- lazily, when it scrolls into
  view, and never while the live view hides it. The saved viewer lays out with the
  viewer's simple layered layout: ELK's 1.6 MB (460 kB gzipped) would make every saved
  view that much bigger.

The view's state (open groups, selection, overlay) lives in the browser. The live view
sends it to the kernel in ONE debounced message after the user stops changing it
(``{"state": ...}``, 1.5 s); Python writes it into a tiny separate output
(:func:`state_html`, updated in place by its display id), which the saved viewer reads
when it boots. Opening, closing, selecting and searching send nothing else. The Python
API's changes come as commands naming the groups to open and to close (never the whole
set): what the user opened in the browser stays open.
"""

from __future__ import annotations

import hashlib
import html
import json
from functools import lru_cache
from pathlib import Path

__all__ = ["viewer_source", "elk_source", "viewer_css", "widget_esm", "saved_viewer_html", "state_html",
           "STATE_DEBOUNCE_MS", "ELK_WAIT_MS", "viewer_version"]

_STATIC = Path(__file__).parent / "static"
_PARTS = ("viewer_model.js", "viewer_layout.js", "viewer_simple.js", "viewer_route.js", "viewer_draw.js", "viewer_mount.js")
STATE_DEBOUNCE_MS = 1500
# How long a live view waits for its kernel to send ELK's source before it lays out with
# the simple layout (no kernel: a notebook opened with its widget state saved).
ELK_WAIT_MS = 2000  # a live view's first paint waits this long at most for ELK's source


@lru_cache(maxsize=1)
def _viewer_expression() -> str:
    """The viewer as one JavaScript expression whose value is its namespace."""
    body = "\n".join((_STATIC / part).read_text(encoding="utf-8") for part in _PARTS)
    return f"(function () {{\n\"use strict\";\nconst SN = {{}};\n{body}\nreturn SN;\n}})()"


@lru_cache(maxsize=1)
def viewer_source() -> str:
    """The viewer as one script defining ``SymnbViewer`` (``decodeModel``, ``mount``, ...)."""
    return f"const SymnbViewer = {_viewer_expression()};\n"


@lru_cache(maxsize=1)
def viewer_version() -> str:
    """A digest of the viewer's source: saved views made by one symnb share one copy."""
    return hashlib.sha256(_viewer_expression().encode("utf-8")).hexdigest()[:12]


@lru_cache(maxsize=1)
def _saved_viewer_source() -> str:
    # Saved outputs are classic scripts sharing the page's global scope: a top-level
    # `const` would be declared again by the next saved view (a SyntaxError that stops it).
    # Each viewer version is defined once, under its digest, for all the views on the page.
    key = json.dumps(viewer_version())
    return (f"window.SymnbViewers = window.SymnbViewers || {{}};\n"
            f"if (!window.SymnbViewers[{key}]) window.SymnbViewers[{key}] = {_viewer_expression()};\n")


@lru_cache(maxsize=1)
def elk_source() -> str:
    """elkjs's worker script (``static/elk-worker.min.js``), or "" when not built."""
    path = _STATIC / "elk-worker.min.js"
    return path.read_text(encoding="utf-8") if path.exists() else ""


@lru_cache(maxsize=1)
def viewer_css() -> str:
    return (_STATIC / "viewer.css").read_text(encoding="utf-8")


_WIDGET_GLUE = """
// While a live view shows, its saved snapshot (the next output) is hidden by a style rule
// in the page's head; the rule goes with the last live view of that key.
const hiding = new Map();  // snapshot key -> live views showing it
function hideSnapshot(key) {
  if (!key) return () => {};
  const id = `symnb-live-${key}`;
  hiding.set(key, (hiding.get(key) || 0) + 1);
  if (!document.getElementById(id)) {
    const style = document.createElement("style");
    style.id = id;
    style.textContent = `.symnb-snapshot[data-symnb-key="${CSS.escape(key)}"] { display: none !important; }`;
    document.head.appendChild(style);
  }
  return () => {
    const left = (hiding.get(key) || 1) - 1;
    if (left > 0) { hiding.set(key, left); return; }
    hiding.delete(key);
    const style = document.getElementById(id);
    if (style) style.remove();
  };
}

// ELK's source, asked of the kernel once per page and shared by every view on it (a
// promise on globalThis, by viewer version: each view's module is its own copy). The
// promise waits for an answer however late (a busy kernel reads the request after its
// running cells); the views lay out simply meanwhile (SN.mount's elkWaitMs). A request
// unanswered for ELK_WAIT_MS is sent again by the next view made (a kernel may have
// started since); any answer serves every view on the page.
function elkSource(model) {
  const pages = (globalThis.SymnbElkSources = globalThis.SymnbElkSources || {});
  if (!pages[VIEWER_VERSION]) {
    let resolve = null;
    const text = new Promise((r) => { resolve = r; });
    pages[VIEWER_VERSION] = { text, resolve, answered: false, asked: -Infinity };
  }
  const page = pages[VIEWER_VERSION];
  if (!page.answered && performance.now() - page.asked > ELK_WAIT_MS) {
    page.asked = performance.now();
    const listen = (msg) => {
      if (!msg || typeof msg.elk_source !== "string") return;
      model.off("msg:custom", listen);
      page.answered = true;
      page.resolve(msg.elk_source);
    };
    model.on("msg:custom", listen);
    try { model.send({ elk: true }); } catch (err) { model.off("msg:custom", listen); }
  }
  return page.text;
}

function render({ model, el }) {
  const unhide = hideSnapshot(model.get("snapshot_key"));
  el.classList.add("symnb-explorer");
  const header = document.createElement("div"), footer = document.createElement("div"), host = document.createElement("div");
  header.className = "symnb-header"; footer.className = "symnb-footer";
  header.innerHTML = model.get("header");  // Python's HTML (symnb.printing.html escapes every name)
  footer.innerHTML = model.get("footer");
  el.append(header, host, footer);
  let mounted = null, stateTimer = null, gone = false;
  const waiting = new Map();  // node id -> the card part its kernel details go to
  const onMessage = (msg) => {
    if (!msg || !mounted) return;
    if (typeof msg.details_for === "string") {
      const into = waiting.get(msg.details_for);
      waiting.delete(msg.details_for);
      if (into && into.isConnected) into.innerHTML = msg.html;  // Python's escaped HTML
    } else if (msg.command) {  // what the Python API changed: added to what the user opened here
      mounted.view.changeOpen(msg.command.open || [], msg.command.close || [], msg.command.selected || "");
    }
  };
  model.on("msg:custom", onMessage);
  // ELK's source is asked for and its worker started while the model is decoded (the two
  // take about as long); with no answer yet, the view lays out simply and says why.
  const elk = new SymnbViewer.ElkRunner(elkSource(model));
  elk.start().catch(() => { /* the first layout falls back and says why */ });
  SymnbViewer.decodeModel(model.get("model_data")).then((data) => {
    if (gone) return;
    mounted = SymnbViewer.mount(host, {
      model: data, state: model.get("view_state"), elk, live: true, elkWaitMs: ELK_WAIT_MS,
      details(id, into) {
        const button = document.createElement("button");
        button.className = "symnb-card-button symnb-kernel-details";
        button.textContent = "values from the kernel (heatmap, inputs)";
        button.addEventListener("click", () => { waiting.set(id, into); model.send({ details: id }); button.disabled = true; });
        into.replaceChildren(button);
      },
      onState(state) {
        clearTimeout(stateTimer);
        stateTimer = setTimeout(() => { if (!gone) model.send({ state }); }, STATE_DEBOUNCE_MS);
      },
    });
    el.symnbView = mounted.view;
  }).catch((err) => { host.textContent = `the graph view could not start: ${err && err.message}`; });
  return () => {
    gone = true;
    clearTimeout(stateTimer);
    model.off("msg:custom", onMessage);
    if (mounted) mounted.destroy();
    else elk.stop();
    unhide();
    el.replaceChildren();
    el.classList.remove("symnb-explorer");
    delete el.symnbView;
  };
}

export default { render };
"""


@lru_cache(maxsize=1)
def widget_esm() -> str:
    """The anywidget module: the viewer and ``render`` (ELK's source is asked of the kernel
    once per page, :meth:`GraphView answers <symnb.widgets.graph_view.graph_view_class>`)."""
    return (viewer_source() + f"const VIEWER_VERSION = {json.dumps(viewer_version())};\n"
            f"const STATE_DEBOUNCE_MS = {STATE_DEBOUNCE_MS};\nconst ELK_WAIT_MS = {ELK_WAIT_MS};\n"
            + _WIDGET_GLUE)


def _script_text(source: str) -> str:
    # Inside <script>, only "</script" (any case) and "<!--" end or change the element.
    return source.replace("</", "<\\/").replace("<!--", "<\\!--")


_BOOT = """
(function () {
  const SymnbViewer = window.SymnbViewers[%(version)s];
  const key = %(key)s;
  const here = (document.currentScript && document.currentScript.closest(".symnb-snapshot"))
    || document.querySelector(`.symnb-snapshot[data-symnb-key="${key}"]`);
  if (!here || here.dataset.symnbBooted) return;
  here.dataset.symnbBooted = "waiting";
  const boot = async () => {
    here.dataset.symnbBooted = "1";
    const data = here.querySelector("script.symnb-model");
    const states = document.querySelectorAll(`.symnb-view-state[data-symnb-key="${key}"]`);
    let state = null;
    try { state = states.length ? JSON.parse(states[states.length - 1].dataset.state || "null") : null; } catch (e) { state = null; }
    const model = await SymnbViewer.decodeModel(data.textContent);
    const host = document.createElement("div");
    here.querySelector(".symnb-saved-viewer").append(host);
    const mounted = SymnbViewer.mount(host, { model, state });
    await mounted.ready;
    const overview = here.querySelector(".symnb-overview");
    if (overview) overview.hidden = true;
    here.symnbView = mounted.view;
  };
  // Only when seen: a live view above hides this snapshot (it then never boots), and a
  // notebook of many views boots each when scrolled to.
  const watch = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) { watch.disconnect(); boot().catch((err) => {
      here.dataset.symnbBooted = "failed: " + (err && err.message); }); }
  });
  watch.observe(here);
})();
"""


def saved_viewer_html(key: str, encoded_model: str) -> str:
    """The saved viewer's part of the snapshot: its host, the model and the boot script
    (inert where scripts do not run: then the static overview beside it shows)."""
    style = f"<style>{viewer_css()}</style>"
    boot = _BOOT % {"key": json.dumps(key), "version": json.dumps(viewer_version())}
    return (f'{style}<div class="symnb-saved-viewer"></div>'
            f'<script type="application/x-symnb-model" class="symnb-model">{_script_text(encoded_model)}</script>'
            f"<script>{_script_text(_saved_viewer_source() + boot)}</script>")


def state_html(key: str, state: dict) -> str:
    """The tiny output the saved viewer reads its state from (open groups, selection,
    overlay): a hidden element, replaced in place as the state changes."""
    text = html.escape(json.dumps(state, separators=(",", ":")), quote=True)
    return f'<div class="symnb-view-state" data-symnb-key="{key}" data-state="{text}" hidden></div>'
