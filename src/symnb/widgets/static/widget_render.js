// symnb viewer's anywidget module, after the viewer (SymnbViewer) and the constants
// VIEWER_VERSION, STATE_DEBOUNCE_MS and ELK_WAIT_MS, which symnb/widgets/viewer.py puts
// before it (widget_esm): render() mounts the viewer on the widget's model.

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
