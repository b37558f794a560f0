// @ts-check
// The guest's upload queue. Files wait in IndexedDB until the box has
// them, so a reload, a closed tab or a dropped hotspot loses nothing. Up to
// two go at a time. What each answer does (docs/decisions.md, "Full card
// and server faults"):
// - a network error, 408, 429 and any 5xx (507 insufficient_storage: the
//   box's card is full; 503 unavailable) are the box's or the network's
//   fault: the file stays and is retried with backoff (Retry-After
//   honoured);
// - uploads_closed, quota_reached, forbidden and a lost event (404) stop
//   the queue with a reason and keep the files;
// - only an answer that says the file itself is at fault drops it, with
//   the reason shown: 413 (too_large, video_too_long), 415 (invalid_image,
//   invalid_video) and videos_off;
// - any other 4xx (a 400, say) is held: the file stays on the phone, is
//   not retried by itself, and the guest can try again or remove it; a
//   later visit tries it again. The only copy is never dropped silently.
// The box answers a repeated upload of the same bytes with the photo it
// already has, so a retry after a lost answer makes no duplicate.
// Files go up resumably (tus, /api/e/:slug/uploads): the upload's address
// is kept with the file, and a retry, even after a reload, asks the box
// how much it has and sends only the rest. A box that does not know the
// route (404/405 at creation: an older box) gets the whole file on the
// one-request route instead.
// Before any of that, a file over the box's limits (the public event's
// limits: size, video length) is refused on the phone with the limit
// named, and never sent.
// What the guest sees of the current selection (its counts, the files
// refused with their reasons, the challenge chosen) is kept beside the
// files, in localStorage, written at once on each change: a reload, a
// closed tab or a lost connection keeps "2 of 5 sent" and the refused
// file's reason, and the thank-you counts the files sent before it too
// (the photos and the videos apart: "2 photos and 1 video").
// The note also keeps how much of each unsent file the box holds (written
// at most once a second while it goes, and as the page goes), so the
// bytes line after a reload starts from there, not from 0, until the box
// answers with its own figure.
import { makePoster, videoBody, VIDEO_TYPE } from './video.js';

const DB_NAME = 'eventbox-uploads';
const STORE = 'items';
const MAX_BACKOFF = 60000;
// An upload that makes no progress for this long is given up and retried.
const STALL_MS = 45000;

function openDB() {
  return new Promise((resolve) => {
    let req;
    try {
      req = indexedDB.open(DB_NAME, 1);
    } catch {
      return resolve(null);
    }
    req.onupgradeneeded = () => {
      const s = req.result.createObjectStore(STORE, { keyPath: 'id' });
      s.createIndex('slug', 'slug');
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(null); // private mode and the like: memory only
  });
}

function idb(db, mode, fn) {
  if (!db) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const out = fn(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(out && 'result' in out ? out.result : null);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

// A finished selection older than this is not counted again on a later
// visit: its thank-you was seen.
const BATCH_STALE_MS = 6 * 3600 * 1000;
// The ids of sent files kept to recognise one sent just before a reload.
const MAX_SENT_IDS = 500;
// How often the bytes the box holds are written to the note while a file goes.
const HELD_SAVE_MS = 1000;

function readNote(key) {
  try {
    const v = JSON.parse(localStorage.getItem(key) || 'null');
    return v && typeof v === 'object' ? v : null;
  } catch {
    return null; // storage off or a damaged note: start afresh
  }
}

const newId = () => Date.now().toString(36) + '-' + Math.random().toString(36).slice(2, 10);

/**
 * send POSTs body with progress; it resolves { status, data, retryAfter }
 * for any answer and rejects only when no answer came (network, stall).
 */
function send(url, body, headers, onProgress, signal) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    let stall;
    const arm = () => {
      clearTimeout(stall);
      stall = setTimeout(() => xhr.abort(), STALL_MS);
    };
    xhr.open('POST', url);
    for (const [k, v] of Object.entries(headers || {})) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      arm();
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      clearTimeout(stall);
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
      resolve({ status: xhr.status, data, retryAfter: Number(xhr.getResponseHeader('Retry-After')) || 0 });
    };
    xhr.onerror = () => { clearTimeout(stall); reject(new Error('network')); };
    xhr.onabort = () => { clearTimeout(stall); reject(new Error('stalled')); };
    xhr.ontimeout = xhr.onerror;
    if (signal) signal.addEventListener('abort', () => xhr.abort());
    arm();
    xhr.send(body);
  });
}

const TUS = { 'Tus-Resumable': '1.0.0' };

/** b64 encodes a metadata value (UTF-8) for Upload-Metadata. */
function b64(v) {
  const bytes = new TextEncoder().encode(String(v));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/**
 * xhr sends one request: it resolves { status, data, header(name),
 * retryAfter } for any answer and rejects when none came (network, stall).
 * @param {string} method
 * @param {string} url
 * @param {{headers?: Record<string, string>, body?: any, onProgress?: (loaded: number) => void, signal?: AbortSignal}} [opts]
 */
function xhr(method, url, { headers, body, onProgress, signal } = {}) {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    let stall;
    const arm = () => {
      clearTimeout(stall);
      stall = setTimeout(() => x.abort(), STALL_MS);
    };
    x.open(method, url);
    for (const [k, v] of Object.entries(headers || {})) x.setRequestHeader(k, v);
    if (onProgress) x.upload.onprogress = (e) => { arm(); onProgress(e.loaded); };
    x.onload = () => {
      clearTimeout(stall);
      let data = null;
      try { data = JSON.parse(x.responseText); } catch { /* not JSON */ }
      resolve({ status: x.status, data, header: (n) => x.getResponseHeader(n), retryAfter: Number(x.getResponseHeader('Retry-After')) || 0 });
    };
    x.onerror = () => { clearTimeout(stall); reject(new Error('network')); };
    x.onabort = () => { clearTimeout(stall); reject(new Error('stalled')); };
    x.ontimeout = x.onerror;
    if (signal) signal.addEventListener('abort', () => x.abort());
    arm();
    x.send(body === undefined ? null : body);
  });
}

/**
 * tusSend sends blob as one resumable upload. state is { url } (kept by
 * the caller with the file: the upload's address once made); save() is
 * called when it changes. onBytes(n) reports the bytes the box holds of
 * this blob. It resolves the last answer: 204 once all is in, or the
 * box's refusal; { status: -1 } when the box has no resumable route.
 */
async function tusSend(slug, blob, meta, state, save, onBytes) {
  const base = `/api/e/${encodeURIComponent(slug)}/uploads`;
  for (let round = 0; round < 4; round++) {
    let offset = 0;
    if (state.url) {
      const head = await xhr('HEAD', state.url, { headers: TUS });
      if (head.status === 404 || head.status === 410) {
        state.url = ''; // expired or removed: start again
        save();
        continue;
      }
      if (head.status !== 200) return head;
      offset = Number(head.header('Upload-Offset')) || 0;
    } else {
      const md = Object.entries(meta).filter(([, v]) => v !== '' && v != null).map(([k, v]) => k + ' ' + b64(v)).join(',');
      const made = await xhr('POST', base, { headers: { ...TUS, 'Upload-Length': String(blob.size), 'Upload-Metadata': md } });
      // An older box: the route is not there (its 404 is not a tus answer).
      if (made.status === 404 && !made.header('Tus-Resumable')) return { status: -1 };
      if (made.status === 405) return { status: -1 };
      if (made.status !== 201) return made;
      state.url = made.header('Location');
      save();
    }
    onBytes(offset);
    if (offset >= blob.size) return { status: 204 };
    const res = await xhr('PATCH', state.url, {
      headers: { ...TUS, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': String(offset) },
      body: blob.slice(offset),
      onProgress: (n) => onBytes(offset + n),
    });
    if (res.status === 409 || res.status === 423) continue; // the box is elsewhere: ask again
    if (res.status === 204) onBytes(blob.size);
    return res;
  }
  return { status: 409, data: null, retryAfter: 0 };
}

/**
 * sendResumable sends one file resumably and answers what the spec's
 * route would: { status, data } (201/200 with { photo } or { message },
 * or a refusal), { status: -1 } when the box has no resumable route.
 * state keeps the upload's address across tries; it rejects when no
 * answer came. Used by the queue and by the guestbook's voice notes.
 */
export async function sendResumable(slug, blob, meta, state, save, onBytes) {
  const res = await tusSend(slug, blob, meta, state, save, onBytes);
  if (res.status !== 204) return res;
  try {
    return await xhr('GET', state.url);
  } catch (e) {
    // The last PATCH's answer named what the box stored: it is in, even
    // if its details could not be read now.
    const stored = res.header && res.header('Upload-Result');
    if (stored) return { status: Number(res.header('Upload-Result-Status')) || 201, data: null, retryAfter: 0 };
    throw e;
  }
}

/**
 * UploadQueue sends one event's files. Listen to:
 *   'change'   — any item's state changed (read .items),
 *   'uploaded' — detail: the PhotoDto the box answered,
 *   'stopped'  — detail: { code }, the queue stopped (see .stopped).
 * Item states: preparing, waiting, uploading, offline, sent, failed
 * (dropped: the file is at fault), held (kept, waiting for the guest).
 * A waiting item with retryAt in the future is backing off; its error is
 * the code of the answer that made it wait ('' for a network error).
 */
export class UploadQueue extends EventTarget {
  /**
   * slug: the event; opts.concurrency (default 2); opts.rejoin: an async
   * function called once when the box says the guest has not joined (the
   * cookie was lost), resolving true when joined again; opts.limits: the
   * public event's limits { imageBytes, videoBytes, videoSeconds, photosLeft }.
   */
  constructor(slug, opts = {}) {
    super();
    this.slug = slug;
    this.limits = opts.limits || {};
    // What happened to the files of the current selection, for the overall
    // line ("4 of 6 sent") and the thank-you once all are in; videos: how
    // many of those sent are videos.
    this.batch = { sent: 0, videos: 0, refused: 0, sentBytes: 0 };
    // The ids of the files of this selection the box has, so one sent
    // just before a reload is neither sent nor counted twice.
    this.sentIds = [];
    // The bytes the box holds of each unsent file, by id, as last known.
    this.held = {};
    this.heldSavedAt = 0;
    // Whether load() has read the files the database kept.
    this.loaded = false;
    // The challenge the guest chose, for the next files.
    this.challenge = '';
    this.noteKey = 'eventbox.queue.' + slug;
    this.concurrency = opts.concurrency || 2;
    this.rejoin = opts.rejoin || (async () => false);
    this.items = [];
    this.restoreNote();
    this.stopped = null;
    this.active = 0;
    // Files added before the database is open wait for it, so none is
    // held in memory only by accident.
    this.db = openDB();
    this.timer = null;
    window.addEventListener('online', () => this.wake());
    // A reload or a closed tab: keep the last figures of the files going.
    window.addEventListener('pagehide', () => this.saveNote());
  }

  /**
   * restoreNote reads what the last visit left of the selection: its
   * counts, the files sent, the refused files (listed again, with their
   * reason) and the challenge chosen.
   */
  restoreNote() {
    const n = readNote(this.noteKey);
    if (!n) return;
    const count = (v) => (Number.isInteger(v) && v >= 0 ? v : 0);
    this.challenge = typeof n.challenge === 'string' ? n.challenge : '';
    if (n.held && typeof n.held === 'object') {
      for (const [id, v] of Object.entries(n.held)) if (count(v)) this.held[id] = v;
    }
    const failed = Array.isArray(n.failed) ? n.failed : [];
    for (const f of failed) {
      if (!f || typeof f.id !== 'string' || typeof f.error !== 'string') continue;
      this.items.push({
        id: f.id, slug: this.slug, name: String(f.name || ''), type: String(f.type || ''), kind: f.kind === 'video' ? 'video' : 'photo',
        blob: null, poster: null, added: Number(f.added) || 0, state: 'failed', progress: 0, attempts: 0, retryAt: 0, error: f.error, early: !!f.early,
      });
    }
    if (n.batch && !(n.pending === 0 && Date.now() - (Number(n.at) || 0) > BATCH_STALE_MS)) {
      this.batch = {
        sent: count(n.batch.sent), videos: Math.min(count(n.batch.videos), count(n.batch.sent)),
        refused: count(n.batch.refused), sentBytes: count(n.batch.sentBytes),
      };
      this.sentIds = Array.isArray(n.sentIds) ? n.sentIds.filter((x) => typeof x === 'string') : [];
    }
  }

  /** saveNote writes the selection's note (restoreNote reads it). */
  saveNote() {
    const failed = this.items.filter((i) => i.state === 'failed').map((i) => ({
      id: i.id, name: i.name, type: i.type, kind: i.kind, error: i.error, added: i.added, early: !!i.early,
    }));
    const held = {};
    for (const i of this.items) {
      if (i.state !== 'sent' && i.state !== 'failed' && this.held[i.id] > 0) held[i.id] = this.held[i.id];
    }
    // Before load, the files still in the database keep their figure too.
    if (!this.loaded) for (const [id, v] of Object.entries(this.held)) if (!this.items.some((i) => i.id === id)) held[id] = v;
    this.held = held;
    this.heldSavedAt = Date.now();
    const note = {
      batch: this.batch, sentIds: this.sentIds.slice(-MAX_SENT_IDS), failed, challenge: this.challenge,
      pending: this.pending, held, at: Date.now(),
    };
    try { localStorage.setItem(this.noteKey, JSON.stringify(note)); } catch { /* storage off: this visit only */ }
  }

  /** setChallenge keeps the challenge chosen for the next files. */
  setChallenge(id) {
    this.challenge = id || '';
    this.saveNote();
  }

  /** load restores the files left from an earlier visit and starts. */
  async load() {
    const saved = await idb(await this.db, 'readonly', (s) => s.index('slug').getAll(this.slug)).catch(() => null);
    for (const r of saved || []) {
      if (this.items.some((i) => i.id === r.id)) continue; // added while loading
      // Sent just before the page went: the box has it.
      if (this.sentIds.includes(r.id)) { this.forget(r); continue; }
      // What the box held of it when the page went: shown until the box
      // answers with its own figure.
      const total = UploadQueue.total(r);
      const sent = Math.min(this.held[r.id] || 0, total);
      this.items.push({ ...r, state: 'waiting', sent, progress: total ? sent / total : 0, attempts: 0, retryAt: 0, error: null });
    }
    this.items.sort((a, b) => a.added - b.added);
    this.loaded = true;
    this.changed();
    this.pump();
  }

  /** pending counts the files not sent yet (dropped ones excluded). */
  get pending() {
    return this.items.filter((i) => i.state !== 'sent' && i.state !== 'failed').length;
  }

  /**
   * done is true once the selection is all in: the files kept from an
   * earlier visit are read, none waits, goes or is held, and at least
   * one was sent (a file the box refused does not keep it from done).
   */
  get done() {
    return this.loaded && this.pending === 0 && this.batch.sent > 0;
  }

  /**
   * unreachable is true when a file waits because no answer came (the
   * hotspot dropped, the box is off): the page offers "retry now".
   */
  get unreachable() {
    return this.items.some((i) => i.state === 'offline' || (i.state === 'waiting' && i.retryAt > Date.now() && i.error === ''));
  }

  /**
   * precheck returns the error code the box would answer for the file's
   * size (too_large), or '' when it is within the limits. The length of a
   * video is checked once its poster is made (add).
   */
  precheck(file) {
    const video = (file.type || '').startsWith('video/');
    const max = video ? this.limits.videoBytes : this.limits.imageBytes;
    // The body carries a few hundred bytes of form around the photo, or
    // the poster before the video: keep a little room for them.
    if (max && file.size > max - (video ? 262144 : 4096)) return 'too_large';
    return '';
  }

  /**
   * reject shows a file refused on the phone (precheck's code) in the
   * list, with its name and the reason; it is never stored or sent.
   */
  reject(file, code) {
    const video = (file.type || '').startsWith('video/');
    this.items.push({
      id: newId(), slug: this.slug, name: file.name || (video ? 'video' : 'photo'), type: file.type, kind: video ? 'video' : 'photo',
      blob: null, poster: null, added: Date.now(), state: 'failed', progress: 0, attempts: 0, retryAt: 0, error: code, early: true,
    });
    this.batch.refused++;
    this.saveNote();
    this.changed();
  }

  /**
   * newBatch starts counting a new selection for the overall line, unless
   * files of the last one are still on their way.
   */
  newBatch() {
    if (this.pending === 0) {
      this.batch = { sent: 0, videos: 0, refused: 0, sentBytes: 0 };
      this.sentIds = [];
      this.saveNote();
    }
  }

  /**
   * add queues files. opts.challenge and opts.at (spot) go with each;
   * opts.sameBatch: the caller started the selection (newBatch) itself.
   * Videos get their poster frame made here, before they are stored.
   */
  async add(files, opts = {}) {
    if (files.length && !opts.sameBatch) this.newBatch();
    for (const file of files) {
      const video = (file.type || '').startsWith('video/');
      const item = {
        id: newId(), slug: this.slug, name: file.name || (video ? 'video' : 'photo'), type: file.type,
        kind: video ? 'video' : 'photo', blob: file, poster: null, challenge: opts.challenge || '', at: opts.at || '',
        added: Date.now(), state: video ? 'preparing' : 'waiting', progress: 0, attempts: 0, retryAt: 0, error: null,
      };
      this.items.push(item);
      this.changed();
      if (video) {
        try {
          const made = await makePoster(file);
          item.poster = made.poster;
          item.durationMs = made.durationMs;
          item.state = 'waiting';
        } catch {
          item.state = 'failed';
          item.error = 'invalid_video';
          this.batch.refused++;
          this.saveNote();
          this.changed();
          continue;
        }
        // The length was measured for the poster: a video over the box's
        // limit is refused here, not after minutes of sending.
        const max = this.limits.videoSeconds;
        if (max && item.durationMs > max * 1000 + 500) {
          item.state = 'failed';
          item.error = 'video_too_long';
          item.early = true;
          item.blob = null;
          this.batch.refused++;
          this.saveNote();
          this.changed();
          continue;
        }
      }
      await this.persist(item);
      this.saveNote();
      this.changed();
    }
    this.pump();
  }

  async persist(item) {
    const rec = {
      id: item.id, slug: item.slug, name: item.name, type: item.type, kind: item.kind, blob: item.blob,
      poster: item.poster, challenge: item.challenge, at: item.at, added: item.added, tus: item.tus || null,
    };
    try {
      await idb(await this.db, 'readwrite', (s) => s.put(rec));
    } catch {
      // Storage full (a long video): the file stays in memory only.
      item.volatile = true;
    }
  }

  async forget(item) {
    await idb(await this.db, 'readwrite', (s) => s.delete(item.id)).catch(() => {});
  }

  /** remove drops an item that is not being sent. */
  async remove(id) {
    const item = this.items.find((i) => i.id === id);
    if (!item || item.state === 'uploading') return;
    this.items = this.items.filter((i) => i !== item);
    this.saveNote();
    await this.forget(item);
    this.changed();
  }

  /** retryHeld sends a held file again. */
  retryHeld(id) {
    const item = this.items.find((i) => i.id === id);
    if (!item || item.state !== 'held') return;
    item.state = 'waiting';
    item.retryAt = 0;
    item.error = null;
    this.changed();
    this.pump();
  }

  /** resume restarts a stopped queue (e.g. after the hosts reopen uploads). */
  resume() {
    this.stopped = null;
    for (const i of this.items) if (i.state === 'waiting' || i.state === 'retrying') i.retryAt = 0;
    this.changed();
    this.pump();
  }

  /** wake retries waiting files now (the connection came back). */
  wake() {
    for (const i of this.items) {
      if (i.state === 'waiting' || i.state === 'retrying' || i.state === 'offline') { i.state = 'waiting'; i.retryAt = 0; }
    }
    this.changed();
    this.pump();
  }

  changed() {
    this.dispatchEvent(new Event('change'));
  }

  stop(code) {
    this.stopped = code;
    this.changed();
    this.dispatchEvent(new CustomEvent('stopped', { detail: { code } }));
  }

  pump() {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const now = Date.now();
    while (this.active < this.concurrency) {
      const next = this.items.find((i) => i.state === 'waiting' && i.retryAt <= now);
      if (!next) break;
      this.active++;
      next.state = 'uploading';
      this.changed();
      this.upload(next).finally(() => {
        this.active--;
        this.pump();
      });
    }
    const later = this.items.filter((i) => i.state === 'waiting' && i.retryAt > now).map((i) => i.retryAt);
    if (later.length) this.timer = setTimeout(() => this.pump(), Math.max(50, Math.min(...later) - now));
  }

  request(item) {
    const q = new URLSearchParams();
    if (item.at) q.set('at', item.at);
    let url = `/api/e/${encodeURIComponent(this.slug)}/photos`;
    if (item.kind === 'video') {
      if (item.challenge) q.set('challenge', item.challenge);
      const qs = q.toString();
      return {
        url: url + (qs ? '?' + qs : ''),
        body: videoBody(item.poster, item.blob),
        headers: { 'Content-Type': VIDEO_TYPE, 'X-Poster-Bytes': String(item.poster.size) },
      };
    }
    const fd = new FormData();
    if (item.challenge) fd.append('challenge', item.challenge);
    fd.append('photo', item.blob, item.name);
    const qs = q.toString();
    return { url: url + (qs ? '?' + qs : ''), body: fd, headers: {} };
  }

  /** total is the bytes of an item: the file, and a video's poster. */
  static total(item) {
    return (item.blob ? item.blob.size : 0) + (item.kind === 'video' && item.poster ? item.poster.size : 0);
  }

  /** bytes reports the bytes the box holds of an item. */
  bytes(item, n) {
    item.total = UploadQueue.total(item);
    item.sent = Math.min(n, item.total);
    item.progress = item.total ? item.sent / item.total : 0;
    // The one-request route starts again from 0 on a reload: nothing to keep.
    if (!this.tusOff) {
      this.held[item.id] = item.sent;
      if (Date.now() - this.heldSavedAt >= HELD_SAVE_MS) this.saveNote();
    }
    this.changed();
  }

  /** selectionBytes is { sent, total } over the selection's files. */
  get selectionBytes() {
    let sent = this.batch.sentBytes || 0;
    let total = sent;
    for (const i of this.items) {
      if (i.state === 'sent' || i.state === 'failed') continue;
      const n = UploadQueue.total(i);
      total += n;
      sent += Math.min(i.sent || 0, n);
    }
    return { sent, total };
  }

  /**
   * sendTus sends an item resumably (a video: its poster, then the video
   * naming it), keeping the uploads' addresses with the file so a reload
   * resumes. It answers as send does, or { status: -1 } for a box without
   * the resumable route.
   */
  async sendTus(item) {
    item.tus = item.tus || {};
    const save = () => this.persist(item);
    const meta = { filename: item.name, filetype: item.type || '', challenge: item.challenge, at: item.at };
    if (item.kind === 'video') {
      item.tus.poster = item.tus.poster || {};
      if (!item.tus.posterDone) {
        const res = await tusSend(this.slug, item.poster, { kind: 'poster', filetype: 'image/jpeg' }, item.tus.poster, save,
          (n) => this.bytes(item, n));
        if (res.status !== 204) return res;
        item.tus.posterDone = true;
        save();
      }
      const id = item.tus.poster.url.split('/').pop();
      item.tus.video = item.tus.video || {};
      return sendResumable(this.slug, item.blob, { ...meta, kind: 'video', poster: id }, item.tus.video, save,
        (n) => this.bytes(item, item.poster.size + n));
    }
    item.tus.photo = item.tus.photo || {};
    return sendResumable(this.slug, item.blob, { ...meta, kind: 'photo' }, item.tus.photo, save, (n) => this.bytes(item, n));
  }

  async upload(item) {
    let res;
    try {
      if (!this.tusOff) {
        res = await this.sendTus(item);
        if (res.status === -1) this.tusOff = true;
        // The video's poster upload expired or was used: start it again.
        if (res.status === 400 && item.tus && item.tus.posterDone && res.data && res.data.details && res.data.details['Upload-Metadata']) {
          item.tus = {};
          await this.persist(item);
          return this.retry(item, 1, 'http_400');
        }
      }
      if (this.tusOff) {
        const { url, body, headers } = this.request(item);
        res = await send(url, body, headers, (p) => this.bytes(item, p * UploadQueue.total(item)));
      }
    } catch {
      return this.retry(item, 0, '');
    }
    const code = (res.data && res.data.error) || '';
    if (res.status === 200 || res.status === 201) {
      item.state = 'sent';
      item.error = null;
      item.progress = 1;
      this.batch.sent++;
      if (item.kind === 'video') this.batch.videos = (this.batch.videos || 0) + 1;
      this.batch.sentBytes = (this.batch.sentBytes || 0) + UploadQueue.total(item);
      item.sent = UploadQueue.total(item);
      this.sentIds.push(item.id);
      this.saveNote();
      await this.forget(item);
      this.changed();
      if (res.data && res.data.photo) this.dispatchEvent(new CustomEvent('uploaded', { detail: res.data.photo }));
      else if (!res.data && item.tus) this.laterResult(item.tus.video || item.tus.photo);
      setTimeout(() => {
        this.items = this.items.filter((i) => i !== item);
        this.changed();
      }, 2500);
      return undefined;
    }
    if (res.status === 0 || res.status === 408 || res.status === 429 || res.status >= 500) {
      return this.retry(item, res.retryAfter, code || 'http_' + res.status);
    }
    if (res.status === 403 && code === 'forbidden' && !item.rejoined) {
      item.rejoined = true;
      if (await this.rejoin().catch(() => false)) {
        item.state = 'waiting';
        return undefined;
      }
    }
    if (res.status === 403 && (code === 'uploads_closed' || code === 'quota_reached' || code === 'forbidden')) {
      item.state = 'waiting';
      this.stop(code);
      return undefined;
    }
    if (res.status === 404) {
      item.state = 'waiting';
      this.stop('gone');
      return undefined;
    }
    item.error = code || 'http_' + res.status;
    if (res.status === 413 || res.status === 415 || (res.status === 403 && code === 'videos_off')) {
      // The file itself is refused: tell, drop it, keep the rest going.
      item.state = 'failed';
      this.batch.refused++;
      this.saveNote();
      await this.forget(item);
    } else {
      // Any other refusal does not say the file is bad: keep it for the
      // guest to try again or remove.
      item.state = 'held';
    }
    this.changed();
    return undefined;
  }

  /**
   * laterResult reads a stored upload's photo once the box answers again
   * (its last PATCH said it was stored, the details were not read), for
   * the page to show it.
   */
  async laterResult(state) {
    for (let i = 0; state && state.url && i < 40; i++) {
      await new Promise((r) => setTimeout(r, 3000));
      try {
        const res = await xhr('GET', state.url);
        if (res.data && res.data.photo) this.dispatchEvent(new CustomEvent('uploaded', { detail: res.data.photo }));
        if (res.status < 500) return;
      } catch { /* not yet */ }
    }
  }

  retry(item, retryAfter, code) {
    item.attempts++;
    // What the box holds stays (a resumable upload goes on from there).
    if (this.tusOff) { item.progress = 0; item.sent = 0; }
    item.error = code;
    if (!navigator.onLine) {
      item.state = 'offline';
      item.retryAt = 0;
      this.changed();
      return;
    }
    const backoff = Math.min(MAX_BACKOFF, 2000 * 2 ** Math.min(item.attempts - 1, 6));
    const delay = retryAfter > 0 ? retryAfter * 1000 : backoff * (0.75 + Math.random() * 0.5);
    item.state = 'waiting';
    item.retryAt = Date.now() + delay;
    this.changed();
  }
}
