// @ts-check
// Helpers shared by every page: the API client, a tiny DOM builder,
// toasts and formatting. No dependencies, no build step.

/** ApiError is a failed API call: status 0 means the network failed. */
export class ApiError extends Error {
  constructor(status, body, retryAfter) {
    const code = (body && body.error) || (status === 0 ? 'network' : 'http_' + status);
    super(code);
    this.status = status;
    this.code = code;
    this.details = (body && body.details) || {};
    this.serverMessage = (body && body.message) || '';
    this.retryAfter = retryAfter || 0;
  }
}

/**
 * api calls a JSON route of the box and resolves with the decoded answer.
 * body may be a plain object (sent as JSON), FormData or a Blob; cache is
 * the fetch's cache mode ('no-store' unless a call takes a preloaded
 * answer). It rejects with ApiError for any answer other than 2xx.
 * @param {string} path
 * @param {{method?: string, body?: any, headers?: Record<string, string>, signal?: AbortSignal, cache?: RequestCache}} [opts]
 */
export async function api(path, { method = 'GET', body, headers = {}, signal, cache = 'no-store' } = {}) {
  /** @type {RequestInit & {headers: Record<string, string>}} */
  const init = { method, headers: { ...headers }, credentials: 'same-origin', signal, cache };
  if (body instanceof FormData || body instanceof Blob) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers['Content-Type'] = 'application/json';
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new ApiError(0, null, 0);
  }
  const text = await res.text().catch(() => '');
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (!res.ok) throw new ApiError(res.status, data, Number(res.headers.get('Retry-After')) || 0);
  return data;
}

/**
 * h builds an element: h('button', { class: 'btn', onclick: fn }, 'Save').
 * Attributes: class, text, html (trusted markup only), on<event>, dataset
 * (object), style (string), booleans (true sets, false omits), others as
 * attributes. Children may be nodes, strings, numbers, arrays or null.
 */
export function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else if (k === 'html') el.innerHTML = v;
      else if (k === 'dataset') Object.assign(el.dataset, v);
      // Through the CSSOM: the pages' Content-Security-Policy refuses
      // style attributes set as markup.
      else if (k === 'style') el.style.cssText = v;
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'value' || k === 'checked' || k === 'selected' || k === 'indeterminate') el[k] = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, kids);
  return el;
}

function append(el, kids) {
  for (const k of kids) {
    if (k === null || k === undefined || k === false) continue;
    if (Array.isArray(k)) append(el, k);
    else el.append(k instanceof Node ? k : String(k));
  }
}

/** $ returns the first element matching sel under root (document by default). */
export const $ = (sel, root = document) => root.querySelector(sel);

/** clear empties an element and appends the given children. */
export function clear(el, ...kids) {
  el.replaceChildren();
  append(el, kids);
  return el;
}

/**
 * showCurrentTabs scrolls each tab bar under root that is wider than the
 * screen (app.css: tab bars keep one row and scroll sideways) so that its
 * current tab is in view.
 */
export function showCurrentTabs(root) {
  for (const cur of root.querySelectorAll('.tabs [aria-current=page], .tabs [aria-selected=true]')) {
    const bar = cur.closest('.tabs');
    if (bar.scrollWidth <= bar.clientWidth) continue;
    const off = cur.getBoundingClientRect().left - bar.getBoundingClientRect().left;
    bar.scrollLeft += off - (bar.clientWidth - cur.offsetWidth) / 2;
  }
}

/**
 * clipboard puts text on the clipboard, also on a page served over plain
 * http, where the clipboard API is missing (a hidden textarea and the
 * copy command).
 */
export async function clipboard(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const ta = h('textarea', { style: 'position:fixed;opacity:0' });
    ta.value = text;
    document.body.append(ta);
    ta.select();
    document.execCommand('copy');
    ta.remove();
  }
}

/** toast shows a short message at the bottom of the screen. */
export function toast(text, kind = '') {
  let box = document.querySelector('.toasts');
  if (!box) {
    box = h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' });
    document.body.append(box);
  }
  const t = h('div', { class: 'toast ' + kind, text });
  box.append(t);
  setTimeout(() => t.remove(), kind === 'bad' ? 6000 : 3500);
}

/** fmtBytes writes a byte count for people in the page's language: 1.2 MB, 1,2 Mo. */
export function fmtBytes(n, lang) {
  if (!Number.isFinite(n)) return '';
  const u = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'];
  let i = 0;
  while (n >= 1000 && i < u.length - 1) { n /= 1000; i++; }
  return new Intl.NumberFormat(lang || pageLang(), { style: 'unit', unit: u[i], unitDisplay: 'short', maximumFractionDigits: i && n < 10 ? 1 : 0 }).format(n);
}

/**
 * BOOTH_NAME is the name the box gives the photo booth's photos (the
 * guestName of the API's answers); pages show their own word for it.
 */
export const BOOTH_NAME = 'Photo booth';

/** guestLabel is a guest's name as a page shows it: the booth's in the page's words. */
export const guestLabel = (name, booth) => (name === BOOTH_NAME ? booth : name);

// pageLang is the language the page speaks (i18n.js sets it on <html>),
// so that dates read in it rather than in the browser's own locale.
const pageLang = () => (typeof document !== 'undefined' && document.documentElement.lang) || undefined;

/** fmtTime writes an epoch-ms time in lang (else the page's language), or '' for null. */
export function fmtTime(ms, lang) {
  if (!ms) return '';
  return new Date(ms).toLocaleString(lang || pageLang(), { dateStyle: 'medium', timeStyle: 'short' });
}

/** fmtDate writes a YYYY-MM-DD date in lang (else the page's language). */
export function fmtDate(ymd, lang) {
  if (!ymd) return '';
  const [y, m, d] = ymd.split('-').map(Number);
  return new Date(y, m - 1, d).toLocaleDateString(lang || pageLang(), { dateStyle: 'long' });
}

/** sleep resolves after ms milliseconds. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// luminance is the WCAG relative luminance of a 0xrrggbb colour.
function luminance(n) {
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin(n >> 16) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
}

/** contrast is the WCAG contrast ratio of two 0xrrggbb colours. */
export function contrast(a, b) {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

const hex = (n) => '#' + n.toString(16).padStart(6, '0');

/**
 * setAccent applies an event's accent colour (#rrggbb) to the page: the
 * text on it (--accent-ink) is whichever of white and ink reads better,
 * and links and tabs in the accent colour (--accent-text) are darkened
 * until they reach WCAG AA (4.5:1) on the page's background, so no host's pick leaves a
 * guest with unreadable buttons.
 */
export function setAccent(color) {
  if (!/^#[0-9a-f]{6}$/i.test(color || '')) return;
  const root = document.documentElement.style;
  const n = parseInt(color.slice(1), 16);
  const ink = 0x1d1b19;
  root.setProperty('--accent', color);
  root.setProperty('--accent-ink', contrast(n, 0xffffff) >= contrast(n, ink) ? '#fff' : hex(ink));
  let text = n;
  for (let k = 0; k < 20 && contrast(text, 0xf6f5f3) < 4.5; k++) {
    const r = text >> 16, g = (text >> 8) & 255, b = text & 255;
    text = (Math.round(r * 0.9) << 16) | (Math.round(g * 0.9) << 8) | Math.round(b * 0.9);
  }
  root.setProperty('--accent-text', hex(text));
}

const SVG = 'http://www.w3.org/2000/svg';
const ICONS = {
  camera: 'M4 8h3l2-3h6l2 3h3v11H4zM12 10a3.5 3.5 0 1 0 0 7a3.5 3.5 0 1 0 0-7',
  video: 'M3 7h12v10H3zM15 11l6-4v10l-6-4',
  image: 'M3 5h18v14H3zM3 16l5-5l4 4l3-3l6 6M15 8.5a1.5 1.5 0 1 0 0 .01',
  mic: 'M9 4a3 3 0 0 1 6 0v7a3 3 0 0 1-6 0zM5 11a7 7 0 0 0 14 0M12 18v3M8 21h8',
  play: 'M8 5v14l11-7z',
  pause: 'M6 5h4v14H6zM14 5h4v14h-4z',
  star: 'M12 3l2.8 5.7l6.2.9l-4.5 4.4l1.1 6.2L12 17.3L6.4 20.2l1.1-6.2L3 9.6l6.2-.9z',
};

/**
 * icon is a small line drawing (camera, video, image, mic, play, star),
 * drawn in the text colour: the pages carry no emoji, whose glyphs a
 * phone's or a kiosk's font may lack.
 */
export function icon(name) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', 'icon');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', ICONS[name] || '');
  svg.append(path);
  return svg;
}

/** fmtSeconds writes a length for people: "2 min", "90 s". */
export const fmtSeconds = (s) => (s >= 60 && s % 60 === 0 ? `${s / 60} min` : `${s} s`);

/**
 * infinite calls more() whenever sentinel scrolls into view, until more()
 * resolves false. It returns a function that stops watching.
 */
export function infinite(sentinel, more) {
  let busy = false;
  let done = false;
  const io = new IntersectionObserver(async (entries) => {
    if (busy || done || !entries.some((e) => e.isIntersecting)) return;
    busy = true;
    try {
      if (!(await more())) { done = true; io.disconnect(); }
    } finally {
      busy = false;
    }
    // Still visible (short page): ask again.
    if (!done) {
      const r = sentinel.getBoundingClientRect();
      if (r.top < innerHeight + 200) { io.unobserve(sentinel); io.observe(sentinel); }
    }
  }, { rootMargin: '600px 0px' });
  io.observe(sentinel);
  return () => { done = true; io.disconnect(); };
}

/** mediaURL is the address of a photo variant: thumb, display, original, play or preview. */
export const mediaURL = (id, v, download) =>
  '/api/media/' + encodeURIComponent(id) + '?v=' + v + (download ? '&download=1' : '');

/**
 * errorText turns an API failure into a sentence for guests (t translates):
 * each error code of the spec has its own words (err_<code> in the
 * locales), anything else is the generic sentence.
 */
export function errorText(t, e) {
  if (!(e instanceof ApiError)) return t('genericError');
  if (e.code === 'network') return t('offline');
  if (e.code === 'rate_limited') return t('tooMany', { s: e.retryAfter || 60 });
  const key = 'err_' + e.code;
  const s = t(key);
  return s === key ? t('genericError') : s;
}

/**
 * secretForm is the card that asks for an event code or a gallery password:
 * it calls send(value) on submit, shows `wrong` for invalid_code and
 * errorText for anything else, and keeps the button disabled meanwhile.
 * It returns { form, input }.
 */
export function secretForm(t, { input, title, hint, label, button, wrong, send }) {
  const err = h('div', { class: 'form-err', role: 'alert' });
  const form = h('form', { class: 'card' },
    h('h2', { style: 'margin-top:0' }, title),
    h('p', { class: 'muted' }, hint),
    h('div', { class: 'field' }, h('label', { for: input.id }, label), input, err),
    h('button', { class: 'primary block big', type: 'submit' }, button));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.textContent = '';
    const btn = form.querySelector('button');
    btn.disabled = true;
    try {
      await send(input.value);
    } catch (x) {
      err.textContent = x.code === 'invalid_code' ? wrong : errorText(t, x);
      input.select();
    } finally {
      btn.disabled = false;
    }
  });
  return { form, input };
}

/**
 * safeImg is an <img> that stays invisible until it has loaded, so a
 * photo that cannot be shown (a HEIC the browser cannot draw, a file it
 * cannot read, the box out of reach) leaves the placeholder under it
 * instead of a broken-image icon. onFail(img) is called on each error.
 */
export function safeImg(attrs, onFail) {
  const img = h('img', { alt: '', ...attrs, class: ((attrs && attrs.class) || '') + ' wait' });
  img.addEventListener('load', () => img.classList.remove('wait'));
  img.addEventListener('error', () => { img.classList.add('wait'); if (onFail) onFail(img); });
  return img;
}

/**
 * downloadLink is the viewer's Download button for a photo. A HEIC
 * original, which most computers and older phones cannot open, is offered
 * as its JPEG display variant instead (its type is asked for with a
 * one-byte request).
 */
export function downloadLink(p, label) {
  const a = h('a', { class: 'btn small', href: mediaURL(p.id, 'original', true), download: '' }, label);
  if (!p.video) {
    // The box's media route answers GET only: ask for one byte.
    fetch(mediaURL(p.id, 'original'), { headers: { Range: 'bytes=0-0' }, credentials: 'same-origin' }).then((res) => {
      if (/hei[cf]/i.test(res.headers.get('Content-Type') || '')) a.href = mediaURL(p.id, 'display', true);
    }).catch(() => { /* offline: the original it is */ });
  }
  return a;
}

/** fmtClock writes a length in seconds as m:ss. */
export function fmtClock(s) {
  const n = Math.max(0, Math.floor(s || 0));
  return `${Math.floor(n / 60)}:${String(n % 60).padStart(2, '0')}`;
}

/**
 * voiceNote is the player of a guestbook message's voice note. Its length
 * is the one the box measured on upload (seconds): a note recorded in a
 * browser (WebM from MediaRecorder) carries none, and the browser's own
 * player would read it as Infinity and show 0:00.
 */
export function voiceNote(m, label) {
  const total = Number.isFinite(m.seconds) && m.seconds > 0 ? m.seconds : 0;
  const audio = h('audio', { preload: 'none', src: `/api/messages/${encodeURIComponent(m.id)}/audio` });
  const time = h('span', { class: 'small muted voice-time' }, fmtClock(total));
  const bar = h('progress', { class: 'grow', max: total || 1, value: 0, 'aria-hidden': 'true' });
  const btn = h('button', { type: 'button', class: 'small voice-play', 'aria-label': label, 'aria-pressed': 'false' }, icon('play'));
  const show = (playing) => {
    btn.setAttribute('aria-pressed', String(playing));
    clear(btn, icon(playing ? 'pause' : 'play'));
  };
  btn.addEventListener('click', () => {
    if (audio.paused) audio.play().catch(() => show(false)); else audio.pause();
  });
  audio.addEventListener('play', () => show(true));
  audio.addEventListener('pause', () => show(false));
  audio.addEventListener('timeupdate', () => {
    bar.value = Math.min(audio.currentTime, total || 1);
    time.textContent = `${fmtClock(audio.currentTime)} / ${fmtClock(total)}`;
  });
  audio.addEventListener('ended', () => { bar.value = 0; time.textContent = fmtClock(total); show(false); });
  return h('div', { class: 'row voice' }, btn, bar, time, audio);
}
