// The saved viewer's boot script (symnb/widgets/viewer.py, saved_viewer_html): boots the
// viewer on the model embedded beside it, in the state the user left. VIEWER_VERSION and
// SNAPSHOT_KEY are replaced there by the viewer's version and the view's key (JSON
// strings), and this header left out: a saved view holds the script from its first line on.
(function () {
  const SymnbViewer = window.SymnbViewers[VIEWER_VERSION];
  const key = SNAPSHOT_KEY;
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
