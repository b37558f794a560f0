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
 * body may be a plain object (sent as JSON), FormData or a Blob.
 * It rejects with ApiError for any answer other than 2xx.
 */
export async function api(path, { method = 'GET', body, headers = {}, signal } = {}) {
  const init = { method, headers: { ...headers }, credentials: 'same-origin', signal, cache: 'no-store' };
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

/** fmtBytes writes a byte count for people: 1.2 MB. */
export function fmtBytes(n) {
  if (!Number.isFinite(n)) return '';
  const u = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1000 && i < u.length - 1) { n /= 1000; i++; }
  return (i ? n.toFixed(n < 10 ? 1 : 0) : n) + ' ' + u[i];
}

/** fmtTime writes an epoch-ms time in the reader's locale, or '' for null. */
export function fmtTime(ms, lang) {
  if (!ms) return '';
  return new Date(ms).toLocaleString(lang || undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** fmtDate writes a YYYY-MM-DD date in the reader's locale. */
export function fmtDate(ymd, lang) {
  if (!ymd) return '';
  const [y, m, d] = ymd.split('-').map(Number);
  return new Date(y, m - 1, d).toLocaleDateString(lang || undefined, { dateStyle: 'long' });
}

/** sleep resolves after ms milliseconds. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** setAccent applies an event's accent colour (#rrggbb) to the page. */
export function setAccent(color) {
  if (!/^#[0-9a-f]{6}$/i.test(color || '')) return;
  const root = document.documentElement.style;
  root.setProperty('--accent', color);
  const n = parseInt(color.slice(1), 16);
  const lum = 0.2126 * (n >> 16) + 0.7152 * ((n >> 8) & 255) + 0.0722 * (n & 255);
  root.setProperty('--accent-ink', lum > 160 ? '#1d1b19' : '#fff');
}

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

/** mediaURL is the address of a photo variant: thumb, display, original or play. */
export const mediaURL = (id, v, download) =>
  '/api/media/' + encodeURIComponent(id) + '?v=' + v + (download ? '&download=1' : '');

/** errorText turns an API failure into a sentence for guests (t translates). */
export function errorText(t, e) {
  if (!(e instanceof ApiError)) return t('genericError');
  if (e.code === 'network') return t('offline');
  if (e.code === 'rate_limited') return t('tooMany', { s: e.retryAfter || 60 });
  return t('genericError');
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
