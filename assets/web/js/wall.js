// @ts-check
// The live wall (/wall/<token>): a full-screen show of an event's visible
// photos and approved guestbook texts for a screen at the venue, opened
// with a wall link the hosts made in the console (no sign-in). It follows
// the event's wallStyle, shows a new photo within a second or two of it
// becoming visible (pushed by the box, live.js), and is built to run all
// night: at most two slides in the page, a bounded list of photos, and
// every video's source released when its slide goes.
import { h, clear, guestLabel } from './lib.js';
import { openLive } from './live.js';
import { pickLang, loadI18n } from './i18n.js';


// POOL bounds the photos kept in memory (newest first); MESSAGES the texts.
const POOL = 300;
const MESSAGES = 50;
// A text comes after every MESSAGE_EVERY slides of photos.
const MESSAGE_EVERY = 4;
// FADE is the cross-fade, ms; a video plays at most MAX_VIDEO ms.
const FADE = 800;
const MAX_VIDEO = 30000;

const app = document.getElementById('app');
const token = decodeURIComponent(location.pathname.split('/')[2] || '');
const base = '/api/wall/' + encodeURIComponent(token);
const media = (id, v) => `${base}/media/${encodeURIComponent(id)}?v=${v}`;

async function load() {
  const res = await fetch(base, { cache: 'no-store' });
  if (!res.ok) return { status: res.status };
  return { status: 200, data: await res.json() };
}

function goneScreen(t) {
  document.title = 'eventbox wall';
  clear(app, h('div', { class: 'wall' }, h('div', { class: 'empty', role: 'status' }, t('gone'))));
}

async function main() {
  let first;
  try { first = await load(); } catch { first = { status: 0 }; }
  if (first.status === 0) { setTimeout(main, 5000); return; }
  const { t, lang } = await loadI18n(pickLang(first.data && first.data.event.defaultLocale), 'wall');
  if (first.status !== 200) return goneScreen(t);
  const ev = first.data.event;
  const style = ev.wallStyle;
  document.title = ev.name;
  // revealAt holds the album back (docs/decisions.md, "Reveal later"):
  // the box sends no photo before it, and the wall starts over after it.
  // Until then it says the photos are being collected and counts down.
  const held = () => ev.revealAt && ev.revealAt > Date.now();
  if (held()) {
    setTimeout(() => location.reload(), Math.min(ev.revealAt - Date.now() + 1000, 2 ** 31 - 1));
  }
  if (ev.accentColor) document.documentElement.style.setProperty('--accent', ev.accentColor);

  const stage = h('div', { class: 'slides', 'aria-live': 'off' });
  const head = h('header', { class: 'wall-head' },
    ev.logoVersion ? h('img', { class: 'logo', src: `/api/e/${encodeURIComponent(ev.slug)}/logo?v=${ev.logoVersion}`, alt: '' }) : null,
    h('h1', null, ev.name));
  const join = ev.joinUrl.replace(/^https?:\/\//, '');
  const card = style.showQr ? h('aside', { class: 'scan' },
    h('img', { src: `${base}/qr`, alt: '' }),
    h('div', { class: 'scan-words' }, h('strong', null, t('scan')), h('div', { class: 'url' }, join),
      ev.accessCode ? h('div', { class: 'code' }, t('code') + ': ', h('b', null, ev.accessCode)) : null)) : null;
  const root = h('main', { class: 'wall v2 ' + (style.layout === 'grid' ? 'grid-layout' : 'single-layout'), title: t('full') }, stage, head, card);
  root.addEventListener('click', () => {
    if (!document.fullscreenElement && document.documentElement.requestFullscreen) document.documentElement.requestFullscreen().catch(() => {});
  });
  clear(app, root);

  const photos = first.data.photos.slice(0, POOL); // newest first
  const messages = first.data.messages.slice(0, MESSAGES);
  const fresh = []; // arrived since start, shown next
  let cycle = 0;
  let msgCycle = 0;
  let slides = 0;
  /** @type {{el: HTMLElement, ids: string[]} | null} */
  let current = null;
  let wake = null;

  const upsert = (list, item, max) => {
    const i = list.findIndex((x) => x.id === item.id);
    if (i >= 0) { list[i] = item; return false; }
    list.unshift(item);
    list.sort((a, b) => b.createdAt - a.createdAt);
    if (list.length > max) list.length = max;
    return true;
  };
  const drop = (list, id) => {
    const i = list.findIndex((x) => x.id === id);
    if (i >= 0) list.splice(i, 1);
  };

  const live = openLive(base + '/live', () => root.isConnected, first.data.liveId || '');
  const onPhoto = (p) => {
    const known = photos.find((x) => x.id === p.id);
    if (known && (p.hearts || 0) > (known.hearts || 0)) heartArrived(root);
    if (upsert(photos, p, POOL)) {
      fresh.push(p);
      if (fresh.length > 20) fresh.shift();
      if (wake) wake();
    }
  };
  live.on('photo.added', onPhoto);
  live.on('photo.changed', onPhoto);
  live.on('photo.removed', ({ id }) => {
    drop(photos, id);
    drop(fresh, id);
    if (current && current.ids.includes(id) && wake) wake();
  });
  live.on('message.changed', (m) => { upsert(messages, m, MESSAGES); });
  live.on('message.removed', ({ id }) => drop(messages, id));
  live.on('reset', async () => {
    const again = await load().catch(() => null);
    if (!again || again.status !== 200) return;
    photos.length = 0;
    photos.push(...again.data.photos.slice(0, POOL));
    messages.length = 0;
    messages.push(...again.data.messages.slice(0, MESSAGES));
  });
  live.on('gone', async () => {
    // Refused: a revoked link answers 404 from now on.
    const again = await load().catch(() => null);
    if (again && again.status === 404) { live.close(); root.remove(); goneScreen(t); }
  });

  const nextPhoto = (not) => {
    while (fresh.length) {
      const p = fresh.shift();
      if (photos.includes(p) && p !== not) return p;
    }
    if (!photos.length) return null;
    for (let k = 0; k < photos.length; k++) {
      const p = photos[cycle++ % photos.length];
      if (p !== not) return p;
    }
    return photos[0];
  };
  const portrait = (p) => p.height > p.width * 1.1;
  const caption = (p) => (style.showNames && p.guestName ? h('div', { class: 'who' }, t('by', { name: guestLabel(p.guestName, t('boothName')) })) : null);
  const loadImg = (src) => new Promise((resolve) => {
    const img = new Image();
    img.decoding = 'async';
    img.alt = '';
    img.onload = () => resolve(img);
    img.onerror = () => resolve(null);
    img.src = src;
  });
  // A photo fills its frame without bars: the photo whole in front of a
  // blurred, darkened copy of itself.
  const frame = async (p) => {
    if (p.video) {
      const v = h('video', { muted: true, autoplay: true, playsinline: true, preload: 'auto', poster: media(p.id, 'display'), src: media(p.id, 'play') });
      v.muted = true;
      return h('figure', { class: 'frame' }, h('div', { class: 'fill', style: `background-image:url("${media(p.id, 'thumb')}")` }), v, caption(p));
    }
    const img = await loadImg(media(p.id, 'display'));
    if (!img) return null;
    return h('figure', { class: 'frame' }, h('div', { class: 'fill', style: `background-image:url("${media(p.id, 'thumb')}")` }), img, caption(p));
  };
  const release = (el) => {
    for (const v of el.querySelectorAll('video')) { v.pause(); v.removeAttribute('src'); v.load(); }
    for (const i of el.querySelectorAll('img')) i.removeAttribute('src');
    el.remove();
  };
  const show = (el, ids) => {
    el.classList.add('slide');
    stage.append(el);
    // Start the fade now: a style flush, not animation frames, which a
    // busy or hidden screen may hold back.
    void el.offsetWidth;
    el.classList.add('on');
    const old = current;
    current = { el, ids };
    if (old) { old.el.classList.remove('on'); setTimeout(() => release(old.el), FADE + 100); }
    // Never more than two slides, whatever the timing.
    while (stage.children.length > 2) release(stage.firstElementChild);
  };
  // The empty wall names no event: the header does, once.
  const countdown = () => {
    const [before, after] = t('revealIn', { time: '\u0001' }).split('\u0001');
    return h('div', { class: 'countdown', role: 'timer' }, before, h('span', { class: 'left' }, untilReveal(ev.revealAt - Date.now(), lang)), after);
  };
  const emptySlide = () => (held()
    ? h('div', { class: 'empty reveal' }, h('div', null, h('div', { class: 'sub' }, t('revealCollecting')), countdown()))
    : h('div', { class: 'empty' }, h('div', null, h('div', { class: 'sub' }, t('empty')))));
  if (held()) {
    // Each second, in place: the digits keep their width (tabular).
    const tick = setInterval(() => {
      if (!root.isConnected || !held()) { clearInterval(tick); return; }
      const text = untilReveal(ev.revealAt - Date.now(), lang);
      for (const c of stage.querySelectorAll('.countdown .left')) if (c.textContent !== text) c.textContent = text;
    }, 1000);
  }
  const messageSlide = (m) => h('blockquote', { class: 'note' }, h('p', null, m.text), m.guestName ? h('footer', null, '— ' + m.guestName) : null);

  const single = async () => {
    const p = nextPhoto();
    if (!p) return { el: emptySlide(), ids: [], ms: 3000 };
    const parts = [p];
    // Two portraits side by side rather than one between wide bars.
    if (portrait(p) && !p.video) {
      const q = photos.find((x) => x !== p && portrait(x) && !x.video && !(current && current.ids.includes(x.id)));
      if (q) parts.push(q);
    }
    const frames = (await Promise.all(parts.map(frame))).filter(Boolean);
    if (!frames.length) return null;
    const el = h('div', { class: 'pair n' + frames.length }, frames);
    let ms = style.interval * 1000;
    if (p.video) ms = Math.max(ms, Math.min(MAX_VIDEO, p.video.durationMs || ms));
    return { el, ids: parts.map((x) => x.id), ms };
  };
  const grid = async () => {
    const picks = [];
    const n = Math.min(6, photos.length);
    for (let i = 0; i < n * 2 && picks.length < n; i++) {
      const p = nextPhoto();
      if (p && !picks.includes(p)) picks.push(p);
    }
    if (!picks.length) return { el: emptySlide(), ids: [], ms: 3000 };
    const frames = (await Promise.all(picks.map(async (p) => {
      if (p.video) return frame(p);
      const img = await loadImg(media(p.id, 'display'));
      return img ? h('figure', { class: 'cell' }, img, caption(p)) : null;
    }))).filter(Boolean);
    return { el: h('div', { class: 'wgrid2 n' + frames.length }, frames), ids: picks.map((x) => x.id), ms: style.interval * 1000 };
  };

  // A photo that came while the next slide was being prepared cuts the
  // slide short too, after a moment to see it.
  // → or the space bar moves on at once (a host at the screen).
  document.addEventListener('keydown', (e) => { if ((e.key === 'ArrowRight' || e.key === ' ') && wake) wake(); });
  const wait = (ms) => new Promise((resolve) => {
    if (fresh.length) ms = Math.min(ms, 700);
    const t = setTimeout(() => { wake = null; resolve(); }, ms);
    wake = () => { clearTimeout(t); wake = null; resolve(); };
  });
  while (root.isConnected) {
    let next;
    if (slides > 0 && slides % MESSAGE_EVERY === 0 && messages.length && !fresh.length) {
      next = { el: messageSlide(messages[msgCycle++ % messages.length]), ids: [], ms: Math.max(5000, style.interval * 1000) };
    } else {
      next = await (style.layout === 'grid' ? grid() : single());
    }
    if (!next) { await wait(1000); continue; }
    slides++;
    // Nothing new to show: the empty slide (and its countdown) stays
    // as it is rather than fading into a copy of itself.
    if (!next.ids.length && current && !current.ids.length && current.el.matches('.empty') && next.el.matches('.empty')) {
      await wait(next.ms);
      continue;
    }
    show(next.el, next.ids);
    // Hold the slide, unless a new photo comes (shown at once, after a
    // short look at this one) or this one is taken down.
    await wait(next.ms);
  }
}

/**
 * untilReveal writes the time left before the reveal in the page's
 * language: "1 day 02:03:04", the days as Intl names them.
 */
function untilReveal(ms, lang) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(s / 86400);
  const hms = [Math.floor(s / 3600) % 24, Math.floor(s / 60) % 60, s % 60].map((n) => String(n).padStart(2, '0')).join(':');
  let days = '';
  if (d) {
    try {
      days = new Intl.NumberFormat(lang, { style: 'unit', unit: 'day', unitDisplay: 'long' }).format(d) + ' ';
    } catch {
      days = d + ' d ';
    }
  }
  return days + hms;
}

main();

// heartArrived floats a heart up the screen: a guest just hearted a photo.
function heartArrived(root) {
  const el = h('div', { class: 'heart-float', 'aria-hidden': 'true' }, '♥');
  el.style.left = `${10 + Math.random() * 80}%`;
  root.append(el);
  setTimeout(() => el.remove(), 2600);
}
