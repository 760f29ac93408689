// symnb viewer, part 7 of 12: rendering, the camera. Where the drawn picture stands in
// the viewport (pan and zoom as one transform), fit, the viewport's height, bringing a box
// or frame into view, and the parts beside the picture that depend on it: the minimap
// (shown only while the picture is bigger than the view) and the folded card panel.
// Rectangles come in the picture's coordinates (a geometry's boxes and frames).

const MIN_ZOOM_FIT = 9 / 12;  // fit never draws text under 9 px
const MAX_VIEWPORT_H = 680;  // px: the tallest a view grows by itself (its corner drags it taller)

SN.Camera = class Camera {
  constructor(page, host) {
    this.page = page;
    this.host = host;
    this.geo = null;  // the picture drawn (its extent)
    this.view = { scale: 1, tx: 0, ty: 0 };
    this.mapShown = true;  // the minimap shown while the picture is bigger than the view
    this.cardShown = true;  // the card panel (folded away: the view takes its width)
    this.flooredAt = null;  // the view the last fit left at the 9 px floor
  }

  apply() {
    const { layer, viewport, mini, mapButton, cardButton, cardHost, side } = this.page;
    const view = this.view, geo = this.geo;
    layer.setAttribute("transform", `translate(${view.tx.toFixed(1)} ${view.ty.toFixed(1)}) scale(${view.scale.toFixed(4)})`);
    this.host.dataset.scale = view.scale.toFixed(4);
    if (!geo) return;
    // The picture's whole extent on screen (the region titles stand above its top).
    const x0 = view.tx, y0 = view.ty - 24 * view.scale;
    const fits = x0 >= -1 && y0 >= -1 && x0 + geo.width * view.scale <= viewport.clientWidth + 1 &&
      view.ty + geo.height * view.scale <= viewport.clientHeight + 1;
    mini.hidden = fits || !this.mapShown;
    mapButton.hidden = fits;
    mapButton.setAttribute("aria-pressed", String(this.mapShown));
    mapButton.title = `${this.mapShown ? "hide" : "show"} the minimap`;
    cardButton.setAttribute("aria-pressed", String(this.cardShown));
    cardButton.title = this.cardShown ? "fold the card panel away (the view takes its width)" : "show the card panel";
    cardHost.hidden = !this.cardShown;
    side.hidden = mini.hidden && !this.cardShown;
    if (!mini.hidden) SN.minimap(mini, geo, { x: -view.tx / view.scale, y: -view.ty / view.scale, w: viewport.clientWidth / view.scale, h: viewport.clientHeight / view.scale });
  }

  // The scale showing the whole picture (its region titles too) in the view.
  wholeScale() {
    const { viewport } = this.page;
    return Math.min(1, (viewport.clientWidth - 24) / this.geo.width, (viewport.clientHeight - 36) / (this.geo.height + 24));
  }

  // fit: the whole picture, its text at 9 px or more; pressed again while the picture
  // still does not fit, smaller than that (the whole picture, however small its text).
  // `pressed`: the user's press (the first draw's fit is not one: a first press after it
  // keeps the 9 px floor).
  fit(pressed = true) {
    if (!this.geo) return;
    const { viewport } = this.page, view = this.view, floored = this.flooredAt;
    const whole = this.wholeScale();
    const again = floored && floored.scale === view.scale && floored.tx === view.tx && floored.ty === view.ty;
    view.scale = again ? whole : Math.max(whole, MIN_ZOOM_FIT);
    view.tx = Math.max((viewport.clientWidth - this.geo.width * view.scale) / 2, 12);
    view.ty = 12 + 24 * view.scale;
    this.flooredAt = pressed && view.scale > whole ? { ...view } : null;
    this.apply();
  }

  // Tall enough for the whole picture at its fitted width (up to MAX_VIEWPORT_H); grows,
  // never shrinks under the user (who may also drag its corner).
  sizeViewport() {
    if (!this.geo) return;
    const { viewport } = this.page;
    const scale = Math.max(Math.min(1, (viewport.clientWidth - 24) / this.geo.width), MIN_ZOOM_FIT);
    const want = Math.round(Math.min(Math.max((this.geo.height + 24) * scale + 40, 260), MAX_VIEWPORT_H));
    if (want > viewport.clientHeight) viewport.style.height = `${want}px`;
  }

  // Screen point of a rectangle's top middle (for keeping the selection in place across a redraw).
  screenOf(r) {
    return r ? { x: this.view.tx + (r.x + r.w / 2) * this.view.scale, y: this.view.ty + r.y * this.view.scale } : null;
  }

  // Moves the picture so that the point `now` stands where `anchor` stood.
  keep(anchor, now) {
    if (anchor && now) { this.view.tx += anchor.x - now.x; this.view.ty += anchor.y - now.y; }
  }

  // `r` into the view, moved the least: whole when it fits the view (zoomed out to no less
  // than the text's full size when the user had zoomed in), else its title row and top left
  // corner (the selection stays where it was when that already shows).
  bringIntoView(r) {
    if (!r) return;
    const { viewport } = this.page, view = this.view;
    const W = viewport.clientWidth, H = viewport.clientHeight, pad = 12;
    const need = Math.min((W - 2 * pad) / r.w, (H - 2 * pad) / r.h);
    if (need < view.scale && view.scale > 1) {  // zoomed in: back towards full size, about its corner
      const s = Math.max(need, 1), x = view.tx + r.x * view.scale, y = view.ty + r.y * view.scale;
      view.tx = x - r.x * s; view.ty = y - r.y * s; view.scale = s;
    }
    const s = view.scale;
    const axis = (start, size, room, at) => {  // the shift along one axis
      const lo = at + start * s, hi = lo + size * s;
      if (size * s <= room - 2 * pad) return hi > room - pad ? room - pad - hi : lo < pad ? pad - lo : 0;
      return lo < pad || lo > room - 80 ? pad - lo : 0;  // bigger than the view: its start shows
    };
    view.tx += axis(r.x, r.w, W, view.tx);
    view.ty += axis(r.y, r.h, H, view.ty);
    this.apply();
  }

  // The picture's point (x, y) at the middle of the view.
  centreOnPoint(x, y) {
    const { viewport } = this.page;
    this.view.tx = viewport.clientWidth / 2 - x * this.view.scale;
    this.view.ty = viewport.clientHeight / 2 - y * this.view.scale;
    this.apply();
  }

  centreOn(r) {
    if (r) this.centreOnPoint(r.x + r.w / 2, r.y + r.h / 2);
  }

  // Whether a screen point lies outside the view.
  offScreen(p) {
    const { viewport } = this.page;
    return Boolean(p && (p.x < 0 || p.y < 0 || p.x > viewport.clientWidth || p.y > viewport.clientHeight));
  }

  zoomAt(factor, x, y) {
    const view = this.view;
    const s = Math.min(Math.max(view.scale * factor, 0.05), 4);
    view.tx = x - (x - view.tx) * (s / view.scale); view.ty = y - (y - view.ty) * (s / view.scale);
    view.scale = s;
    this.apply();
  }

  // Zoomed about the view's middle (the toolbar's buttons).
  zoomMiddle(factor) {
    this.zoomAt(factor, this.page.viewport.clientWidth / 2, this.page.viewport.clientHeight / 2);
  }

  panTo(tx, ty) {
    this.view.tx = tx; this.view.ty = ty;
    this.apply();
  }

  // The picture's point under a click on the minimap.
  miniPoint(e) {
    const { mini } = this.page, geo = this.geo;
    const s = Math.min(mini.width / geo.width, mini.height / geo.height);
    const r = mini.getBoundingClientRect();
    return { x: (e.clientX - r.left) * (mini.width / r.width) / s, y: (e.clientY - r.top) * (mini.height / r.height) / s };
  }
};
