// The live wall (/admin/wall/<eventId>): a full-screen slideshow of the
// event's visible photos for a screen at the venue. It follows the event's
// wallStyle, polls for new photos every few seconds and shows them first.
import { h, clear, mediaURL, sleep } from './lib.js';
import { call, errText } from './admin-ui.js';

const POLL_MS = 5000;
const POOL = 300;

/** wallPage takes over the page; it needs a signed-in console session. */
export async function wallPage(ctx, app, id) {
  document.body.className = 'dark';
  const stage = h('div', { class: 'wall', title: 'Click for full screen' });
  clear(app, stage);
  let ev;
  try {
    ({ event: ev } = await call('/api/admin/events/' + encodeURIComponent(id || '')));
  } catch (e) {
    return clear(stage, h('div', { class: 'empty' }, errText(e)));
  }
  document.title = ev.name + ' · wall';
  // The event always carries a whole wallStyle (the store's event model).
  const style = ev.wallStyle;
  stage.addEventListener('click', () => {
    if (!document.fullscreenElement && document.documentElement.requestFullscreen) document.documentElement.requestFullscreen().catch(() => {});
  });
  stage.style.cursor = 'none';

  const pool = []; // newest first, PhotoDto
  const fresh = []; // arrived since start, not shown yet
  const known = new Set();
  let newest = 0;
  let cycle = 0;
  const poll = async () => {
    // revealAt holds the album back, on the wall too (docs/decisions.md, "Reveal later").
    if (ev.revealAt && Date.now() < ev.revealAt) return;
    try {
      const res = await call(`/api/admin/events/${ev.id}/photos?status=visible`);
      const arrivals = res.photos.filter((p) => !known.has(p.id));
      for (const p of arrivals.reverse()) {
        known.add(p.id);
        pool.unshift(p);
        if (newest && p.createdAt > newest) fresh.push(p);
      }
      if (!newest && pool.length) cycle = 0;
      newest = Math.max(newest, ...pool.map((p) => p.createdAt), 1);
      pool.length = Math.min(pool.length, POOL);
      if (res.photos.length === 0 && pool.length) {
        // Everything was hidden or deleted: start over.
        pool.length = 0;
        known.clear();
      }
    } catch {
      // A dropped connection: keep showing what we have.
    }
  };
  const next = () => {
    if (fresh.length) return fresh.shift();
    if (!pool.length) return null;
    return pool[cycle++ % pool.length];
  };
  const qr = style.showQr ? h('div', { class: 'qr' },
    h('img', { src: `/api/admin/events/${ev.id}/qr?format=svg&size=512`, alt: '', onerror: (e) => e.target.remove() }),
    h('div', null, location.host + '/e/' + ev.slug)) : null;

  const loadImg = async (p) => {
    const img = new Image();
    img.src = mediaURL(p.id, 'display');
    try { await img.decode(); } catch { return null; }
    return img;
  };
  let current = null;
  const showSingle = async () => {
    const p = next();
    if (!p) return empty();
    const img = await loadImg(p);
    if (!img) return;
    const slide = h('div', { class: 'slide', style: 'opacity:0' }, img,
      style.showNames && p.guestName ? h('div', { class: 'who' }, p.guestName) : null);
    stage.append(slide);
    requestAnimationFrame(() => requestAnimationFrame(() => { slide.style.opacity = '1'; }));
    const old = current;
    current = slide;
    if (old) { old.style.opacity = '0'; setTimeout(() => old.remove(), 900); }
  };
  const showGrid = async () => {
    const n = Math.min(6, pool.length + fresh.length);
    if (!n) return empty();
    const picks = [];
    for (let i = 0; i < n; i++) { const p = next(); if (p && !picks.includes(p)) picks.push(p); }
    await Promise.all(picks.map(loadImg));
    const grid = h('div', { class: 'wgrid', style: 'opacity:0' }, picks.map((p) => h('div', { style: `background-image:url("${mediaURL(p.id, 'display')}")` },
      style.showNames && p.guestName ? h('div', { class: 'who' }, p.guestName) : null)));
    stage.append(grid);
    requestAnimationFrame(() => requestAnimationFrame(() => { grid.style.opacity = '1'; }));
    const old = current;
    current = grid;
    if (old) { old.style.opacity = '0'; setTimeout(() => old.remove(), 900); }
  };
  const empty = () => {
    if (current && current.classList.contains('empty')) return;
    const e = h('div', { class: 'empty' }, h('div', null, h('div', null, ev.name), h('div', { style: 'font-size:1.2rem;opacity:.7;margin-top:12px' }, 'Photos appear here as guests take them.')));
    if (current) current.remove();
    current = e;
    stage.append(e);
  };
  if (qr) stage.append(qr);
  await poll();
  let lastPoll = Date.now();
  while (stage.isConnected) {
    await (style.layout === 'grid' ? showGrid() : showSingle());
    if (qr) stage.append(qr); // keep the QR above the slides
    const until = Date.now() + style.interval * 1000;
    while (Date.now() < until && stage.isConnected) {
      if (Date.now() - lastPoll >= POLL_MS) { lastPoll = Date.now(); await poll(); if (fresh.length && current && current.classList.contains('empty')) break; }
      await sleep(500);
    }
  }
}
