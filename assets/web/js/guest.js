// The guest page, /e/<slug>[?at=<spot>]: join or unlock the event, give a
// name, take or pick photos (and videos) into the retrying upload queue,
// see my photos and, when the album is shared, everyone's; the guestbook
// with text and voice notes; a contact address for the gallery mail.
// With ?booth=<key> the page becomes the event's photo booth (booth.js).
import { api, h, $, clear, toast, errorText, secretForm, fmtDate, fmtTime, setAccent, infinite, mediaURL } from './lib.js';
import { loadI18n, pickLang, saveLang, LANGS } from './i18n.js';
import { UploadQueue } from './queue.js';
import { openLightbox } from './lightbox.js';
import { FILTERS, applyFilter } from './filters.js';

const app = $('#app');
const slug = decodeURIComponent(location.pathname.split('/')[2] || '').toLowerCase();
const params = new URLSearchParams(location.search);
const spot = params.get('at') || '';
const boothKey = params.get('booth') || new URLSearchParams(location.hash.slice(1)).get('booth') || '';
const base = '/api/e/' + encodeURIComponent(slug);

let t = (k) => k;
let lang = 'en';
let data = null; // { event, guest }
let queue = null;

function fail(text, retry) {
  clear(app, h('main', { class: 'wrap narrow center', style: 'padding-top:18vh' },
    h('p', { class: 'banner bad' }, text),
    retry ? h('button', { onclick: retry }, t('retry')) : null,
    // A way back: the front page lists the events and takes a code.
    h('p', null, h('a', { class: 'btn', href: '/' }, t('indexBack')))));
}

/** errMsg turns an API failure into a sentence for guests. */
const errMsg = (e) => errorText(t, e);

async function loadEvent() {
  data = await api(base);
  return data;
}

async function main() {
  if (!slug) {
    location.replace('/');
    return;
  }
  try {
    await loadEvent();
  } catch (e) {
    const i = await loadI18n(pickLang(null));
    t = i.t;
    if (e.status === 404) return fail(t('eventNotFound'));
    return fail(errMsg(e), main);
  }
  const ev = data.event;
  ({ t, lang } = await loadI18n(pickLang(ev.defaultLocale)));
  setAccent(ev.accentColor);
  document.title = ev.name;
  try { localStorage.setItem('eventbox.lastEvent', JSON.stringify({ slug, name: ev.name })); } catch { /* storage off */ }
  if (boothKey) {
    const { boothPage } = await import('./booth.js');
    return boothPage({ app, slug, key: boothKey, data, t });
  }
  if (!data.guest.joined) {
    if (ev.needsCode) return codeView();
    try {
      await api(base + '/join', { method: 'POST' });
      await loadEvent();
    } catch (e) {
      return fail(errMsg(e), main);
    }
  }
  if (ev.askGuestName && !data.guest.name && !skippedName()) return nameView();
  mainView();
}

const skipKey = () => 'eventbox.skipName.' + slug;
function skippedName() {
  try { return localStorage.getItem(skipKey()) === '1'; } catch { return false; }
}

function hero() {
  const ev = data.event;
  const picker = h('select', { class: 'lang', 'aria-label': t('language') },
    Object.entries(LANGS).map(([k, v]) => h('option', { value: k, selected: k === lang }, v)));
  picker.addEventListener('change', () => { saveLang(picker.value); location.reload(); });
  return h('header', { class: 'hero' },
    h('div', { class: 'row end' }, picker),
    ev.logoVersion ? h('img', { class: 'logo', src: `${base}/logo?v=${ev.logoVersion}`, alt: '' }) : null,
    h('h1', null, ev.name),
    ev.eventDate ? h('div', { class: 'date' }, fmtDate(ev.eventDate, lang)) : null);
}

function codeView() {
  const { form, input } = secretForm(t, {
    input: h('input', { type: 'text', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', id: 'code' }),
    title: t('codeTitle'), hint: t('codeHint'), label: t('codeLabel'), button: t('enter'), wrong: t('codeWrong'),
    send: async (value) => {
      await api(base + '/unlock', { method: 'POST', body: { code: value.trim() } });
      await loadEvent();
      main();
    },
  });
  clear(app, h('main', { class: 'wrap narrow' }, hero(), form));
  input.focus();
}

function nameView(again) {
  const input = h('input', { type: 'text', autocomplete: 'name', maxlength: 60, id: 'guest-name', value: (data.guest.name || '') });
  const err = h('div', { class: 'form-err', role: 'alert' });
  const form = h('form', { class: 'card' },
    h('h2', { style: 'margin-top:0' }, t('nameTitle')),
    h('p', { class: 'muted' }, t('nameHint')),
    h('div', { class: 'field' }, h('label', { for: 'guest-name' }, t('nameLabel')), input, err),
    h('button', { class: 'primary block big', type: 'submit' }, t('continue')),
    h('p', { class: 'center' }, h('button', {
      type: 'button', class: 'linkish', onclick: () => {
        try { localStorage.setItem(skipKey(), '1'); } catch { /* storage off */ }
        mainView();
      },
    }, again ? t('close') : t('skip'))));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const name = input.value.trim();
    if (!name) return input.focus();
    const btn = form.querySelector('button[type=submit]');
    btn.disabled = true;
    try {
      const res = await api(base + '/guest', { method: 'POST', body: { name } });
      data.guest.name = res.name;
      mainView();
    } catch (x) {
      err.textContent = x.code === 'bad_request' ? Object.values(x.details).join(' ') || t('genericError') : errMsg(x);
    } finally {
      btn.disabled = false;
    }
  });
  clear(app, h('main', { class: 'wrap narrow' }, hero(), form));
  input.focus();
}

function uploadsOpen() {
  const ev = data.event;
  return ev.uploadsOpen && !ev.ended && (!ev.uploadsCloseAt || Date.now() < ev.uploadsCloseAt);
}

function quotaLeft() {
  const max = data.event.maxPhotosPerGuest;
  if (!max) return Infinity;
  return Math.max(0, max - data.guest.photos - (queue ? queue.pending : 0));
}

const refusal = (code) => ({
  too_large: t('errTooLarge'), invalid_image: t('errInvalidImage'), invalid_video: t('errInvalidVideo'),
  video_too_long: t('errVideoTooLong'), videos_off: t('errVideosOff'), uploads_closed: t('errUploadsClosed'),
  quota_reached: t('errQuota'), forbidden: t('genericError'), gone: t('errGone'),
}[code] || t('genericError'));

// Each view below fills a part of the main page and can redraw itself.
let state = { challenge: '', filter: '', tab: 'mine' };

function mainView() {
  const ev = data.event;
  if (!queue) {
    queue = new UploadQueue(slug, {
      rejoin: async () => {
        if (ev.needsCode) return false;
        await api(base + '/join', { method: 'POST' });
        return true;
      },
    });
    queue.addEventListener('uploaded', (e) => {
      data.guest.photos++;
      photoArrived(e.detail);
    });
    queue.addEventListener('stopped', (e) => {
      // The box no longer knows this phone (cookie gone, code changed): start over.
      if (e.detail.code === 'forbidden') return location.reload();
      if (e.detail.code === 'uploads_closed') data.event.uploadsOpen = false;
      drawCapture();
    });
    queue.addEventListener('change', drawQueue);
    queue.load();
  }
  const hello = data.guest.name ? h('p', { class: 'center muted' }, t('nameHello', { name: data.guest.name }), ' ',
    h('button', { class: 'linkish', onclick: () => nameView(true) }, t('nameChange'))) : null;
  clear(app, h('main', { class: 'wrap narrow' },
    hero(),
    ev.description ? h('p', { class: 'center', style: 'white-space:pre-wrap' }, ev.description) : null,
    hello,
    h('section', { id: 'capture' }),
    h('section', { id: 'queue' }),
    h('section', { id: 'contact' }),
    h('nav', { class: 'tabs', id: 'tabs', role: 'tablist' }),
    h('section', { id: 'panel' })));
  drawCapture();
  drawQueue();
  watchEvent();
  drawContact();
  drawTabs();
}

let watching = false;
// watchEvent keeps the page in step with the hosts: uploads closing at
// their time, being closed or reopened, the event ending.
function watchEvent() {
  if (watching) return;
  watching = true;
  const closeIn = data.event.uploadsCloseAt ? data.event.uploadsCloseAt - Date.now() : 0;
  if (closeIn > 0 && closeIn < 2 ** 31 - 1) setTimeout(drawCapture, closeIn + 500);
  setInterval(async () => {
    if (document.visibilityState !== 'visible') return;
    const before = uploadsOpen();
    try {
      const fresh = await api(base);
      data.event = fresh.event;
      data.guest.photos = fresh.guest.photos;
    } catch {
      return; // offline for a moment: try at the next tick
    }
    const now = uploadsOpen();
    if (now && queue.stopped === 'uploads_closed') queue.resume();
    if (now !== before) drawCapture();
  }, 60000);
}

function drawCapture() {
  const box = $('#capture');
  if (!box) return;
  const ev = data.event;
  if (ev.ended) return clear(box, h('div', { class: 'banner' }, t('ended')));
  if (!uploadsOpen() || queue.stopped === 'uploads_closed') return clear(box, h('div', { class: 'banner' }, t('uploadsClosed')));
  if (queue.stopped === 'gone') return clear(box, h('div', { class: 'banner bad' }, t('errGone')));
  if (quotaLeft() <= 0 || queue.stopped === 'quota_reached') return clear(box, h('div', { class: 'banner' }, t('quotaReached')));
  const pick = (accept, capture, multiple) => {
    const input = h('input', { type: 'file', accept, capture: capture || null, multiple: multiple || null });
    input.addEventListener('change', () => {
      const files = [...input.files];
      input.value = '';
      const left = quotaLeft();
      if (files.length > left) toast(t('quotaInfo', { left, max: ev.maxPhotosPerGuest }), 'bad');
      const filter = state.filter;
      Promise.all(files.slice(0, left).map((f) => (filter ? applyFilter(f, filter) : f)))
        .then((ready) => queue.add(ready, { challenge: state.challenge, at: spot }))
        .then(drawCapture);
    });
    return input;
  };
  const button = (label, input, primary, id) => h('label', { class: 'btn block' + (primary ? ' primary' : ''), id }, label, input);
  const mode = ev.captureMode;
  const buttons = [];
  if (mode !== 'picker') {
    buttons.push(button('📷 ' + t('takePhoto'), pick('image/*', 'environment'), true, 'take-photo'));
    if (ev.allowVideos) buttons.push(button('🎥 ' + t('recordVideo'), pick('video/*', 'environment'), false, 'record-video'));
  }
  if (mode !== 'camera') {
    buttons.push(button('🖼️ ' + (ev.allowVideos ? t('chooseMedia') : t('choosePhotos')),
      pick(ev.allowVideos ? 'image/*,video/*' : 'image/*', null, true), mode === 'picker', 'pick-photos'));
  }
  const chips = ev.challenges.length ? h('div', null,
    h('h3', null, t('challengesTitle')),
    h('p', { class: 'small muted', style: 'margin:0 0 6px' }, t('challengeHint')),
    h('div', { class: 'challenges', role: 'group' },
      [{ id: '', label: t('challengeNone') }, ...ev.challenges].map((c) => h('button', {
        type: 'button', 'aria-pressed': state.challenge === c.id ? 'true' : 'false',
        onclick: () => { state.challenge = c.id; drawCapture(); },
      }, c.label)))) : null;
  const offered = (ev.captureFilters.enabled || []).filter((f) => FILTERS[f]);
  const filters = offered.length ? h('div', null,
    h('h3', null, t('filtersTitle')),
    h('div', { class: 'challenges', role: 'group', id: 'filters' },
      ['', ...offered].map((f) => h('button', {
        type: 'button', 'aria-pressed': state.filter === f ? 'true' : 'false', dataset: { filter: f },
        onclick: () => { state.filter = f; drawCapture(); },
      }, t(f ? 'filter_' + f : 'filter_none'))))) : null;
  const notes = [];
  if (ev.uploadsCloseAt) notes.push(t('closesAt', { time: fmtTime(ev.uploadsCloseAt, lang) }));
  if (ev.maxPhotosPerGuest) notes.push(t('quotaInfo', { left: quotaLeft(), max: ev.maxPhotosPerGuest }));
  clear(box, chips, filters, h('div', { class: 'capture' }, buttons),
    notes.length ? h('p', { class: 'small muted center' }, notes.join(' ')) : null);
}

const thumbURLs = new Map();
function localThumb(item) {
  if (!thumbURLs.has(item.id)) {
    const src = item.kind === 'video' ? item.poster : item.blob;
    thumbURLs.set(item.id, src ? URL.createObjectURL(src) : '');
  }
  return thumbURLs.get(item.id);
}

let ticking = null;
function drawQueue() {
  const box = $('#queue');
  if (!box) return;
  const items = queue.items;
  for (const [id, url] of thumbURLs) {
    if (!items.some((i) => i.id === id)) { if (url) URL.revokeObjectURL(url); thumbURLs.delete(id); }
  }
  if (!items.length) { clear(box); return; }
  const now = Date.now();
  const status = (i) => {
    if (queue.stopped && i.state === 'waiting') return t('queueStopped', { reason: refusal(queue.stopped) });
    switch (i.state) {
      case 'preparing': return t('queuePreparing');
      case 'uploading': return t('queueUploading', { p: Math.round(i.progress * 100) });
      case 'offline': return t('queueOffline');
      case 'sent': return t('queueSent');
      case 'failed': return t('queueFailed', { reason: refusal(i.error) });
      case 'held': return t('queueHeld');
      default: {
        if (i.retryAt <= now) return t('queueWaiting');
        const s = Math.ceil((i.retryAt - now) / 1000);
        // Why it waits: the box's card is full, the box failed, or no answer.
        if (i.error === 'insufficient_storage') return t('queueRetryFull', { s });
        if (i.error) return t('queueRetryBox', { s });
        return t('queueRetrying', { s });
      }
    }
  };
  clear(box, h('h3', null, t('queueTitle')), h('ul', { class: 'queue', id: 'queue-list' }, items.map((i) => h('li', { dataset: { state: i.state } },
    localThumb(i) ? h('img', { class: 'qthumb', src: localThumb(i), alt: '' }) : h('span', { class: 'qthumb' }),
    h('div', { class: 'grow' },
      h('div', { class: i.state === 'failed' || i.state === 'held' ? 'form-err' : '' }, status(i)),
      i.state === 'uploading' || i.state === 'sent' ? h('progress', { max: 1, value: i.progress }) : null),
    i.state === 'held' ? h('button', { class: 'small', onclick: () => queue.retryHeld(i.id) }, t('retry')) : null,
    i.state !== 'uploading' && i.state !== 'sent' ? h('button', { class: 'small', onclick: () => queue.remove(i.id), 'aria-label': t('remove') }, '✕') : null))),
  queue.pending ? h('p', { class: 'small muted' }, t('queueKept')) : null);
  const waiting = items.some((i) => i.state === 'waiting' && i.retryAt > now);
  if (waiting && !ticking) ticking = setInterval(() => drawQueue(), 1000);
  if (!waiting && ticking) { clearInterval(ticking); ticking = null; }
}

function drawContact() {
  const box = $('#contact');
  const ev = data.event;
  if (!box || !ev.collectGuestEmails) return;
  const key = 'eventbox.contact.' + slug;
  let saved = '';
  try { saved = localStorage.getItem(key) || ''; } catch { /* storage off */ }
  if (saved) {
    return clear(box, h('div', { class: 'card small' }, t('emailSaved', { email: saved }), ' ',
      h('button', {
        class: 'linkish', onclick: async () => {
          try {
            await api(base + '/contact', { method: 'DELETE' });
            localStorage.removeItem(key);
            drawContact();
          } catch (e) { toast(errMsg(e), 'bad'); }
        },
      }, t('emailRemove'))));
  }
  const input = h('input', { type: 'email', autocomplete: 'email', id: 'contact-email', inputmode: 'email' });
  const err = h('div', { class: 'form-err' });
  const form = h('form', { class: 'card', novalidate: true },
    h('h3', { style: 'margin-top:0' }, t('emailTitle')),
    h('p', { class: 'small muted' }, t('emailHint')),
    h('div', { class: 'row' }, h('div', { class: 'grow' }, input), h('button', { type: 'submit' }, t('emailSave'))), err);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.textContent = '';
    try {
      const res = await api(base + '/contact', { method: 'POST', body: { email: input.value.trim() } });
      try { localStorage.setItem(key, res.email); } catch { /* storage off */ }
      drawContact();
    } catch (x) {
      err.textContent = x.code === 'bad_request' ? t('emailBad') : errMsg(x);
    }
  });
  clear(box, form);
}

function drawTabs() {
  const ev = data.event;
  const tabs = [['mine', t('tabMine')]];
  if (ev.albumShared) tabs.push(['all', t('tabAll')]);
  if (ev.guestbookEnabled) tabs.push(['guestbook', t('tabGuestbook')]);
  if (!tabs.some(([k]) => k === state.tab)) state.tab = 'mine';
  clear($('#tabs'), tabs.map(([k, l]) => h('button', {
    role: 'tab', 'aria-selected': k === state.tab ? 'true' : 'false', id: 'tab-' + k,
    onclick: () => { state.tab = k; drawTabs(); },
  }, l)));
  const panel = $('#panel');
  if (state.tab === 'guestbook') return guestbook(panel);
  return photoList(panel, state.tab === 'all');
}

// The photo list on screen, so a new upload can be shown at once.
let shown = null;

function tileFor(p, list, scopeAll) {
  const img = h('img', { alt: '', loading: 'lazy', decoding: 'async' });
  let tries = 0;
  // Variants are made just after the upload: wait for the thumb.
  img.addEventListener('error', () => {
    if (tries++ < 6) setTimeout(() => { img.src = mediaURL(p.id, 'thumb') + '&r=' + tries; }, 1500 * tries);
  });
  img.src = mediaURL(p.id, 'thumb');
  const tile = h('button', { type: 'button', class: 'tile', dataset: { id: p.id }, 'aria-label': p.video ? t('video') : '' },
    img,
    p.status === 'pending' ? h('span', { class: 'badge' }, t('pending')) : p.status === 'hidden' ? h('span', { class: 'badge' }, t('hidden')) : null,
    p.video ? h('span', { class: 'play' }, '▶') : null);
  tile.addEventListener('click', () => openLightbox(list, list.indexOf(p), {
    labels: { close: t('close'), prev: t('prev'), next: t('next') },
    caption: (q) => (scopeAll && q.guestName ? t('byGuest', { name: q.guestName }) : fmtTime(q.createdAt, lang)),
    actions: (q, close) => [
      h('a', { class: 'btn small', href: mediaURL(q.id, 'original', true), download: '' }, t('download')),
      q.mine ? h('button', {
        class: 'small', onclick: async () => {
          if (!confirm(t('deleteConfirm'))) return;
          try {
            await api(`${base}/photos/${encodeURIComponent(q.id)}`, { method: 'DELETE' });
            data.guest.photos = Math.max(0, data.guest.photos - 1);
            close();
            toast(t('deleted'));
            drawTabs();
            drawCapture();
          } catch (e) { toast(errMsg(e), 'bad'); }
        },
      }, t('delete')) : null,
    ],
  }));
  return tile;
}

function photoList(panel, scopeAll) {
  const grid = h('div', { class: 'grid', id: scopeAll ? 'all-photos' : 'my-photos' });
  const sentinel = h('div', { class: 'sentinel' });
  const note = h('p', { class: 'muted center small' });
  const list = [];
  let cursor;
  clear(panel, grid, sentinel, note);
  shown = { grid, list, scopeAll, note };
  const more = async () => {
    if (cursor === null) return false;
    const q = new URLSearchParams();
    if (scopeAll) q.set('scope', 'all');
    if (cursor) q.set('before', cursor);
    try {
      const res = await api(`${base}/photos?${q}`);
      const fresh = res.photos.filter((p) => !list.some((x) => x.id === p.id));
      list.push(...fresh);
      grid.append(...fresh.map((p) => tileFor(p, list, scopeAll)));
      cursor = res.nextCursor;
      note.textContent = list.length ? '' : scopeAll ? t('allEmpty') : t('mineEmpty');
      return cursor !== null;
    } catch (e) {
      clear(note, errMsg(e), ' ', h('button', { class: 'small', onclick: () => photoList(panel, scopeAll) }, t('retry')));
      return false;
    }
  };
  infinite(sentinel, more);
}

function photoArrived(p) {
  drawCapture();
  if (!shown || !shown.grid.isConnected || shown.list.some((x) => x.id === p.id)) return;
  shown.list.unshift(p);
  shown.grid.prepend(tileFor(p, shown.list, shown.scopeAll));
  shown.note.textContent = '';
}

async function guestbook(panel) {
  const ev = data.event;
  const text = h('textarea', { id: 'gb-text', maxlength: 2000, rows: 3 });
  const err = h('div', { class: 'form-err', role: 'alert' });
  const voice = h('div');
  let audio = null; // { blob, seconds }
  const drawVoice = () => {
    if (!ev.guestbookVoice || !window.MediaRecorder || !navigator.mediaDevices) return clear(voice);
    if (audio) {
      const url = URL.createObjectURL(audio.blob);
      return clear(voice, h('div', { class: 'row' }, h('audio', { controls: true, src: url, style: 'flex:1' }),
        h('button', { type: 'button', class: 'small', onclick: () => { URL.revokeObjectURL(url); audio = null; drawVoice(); } }, t('gbDiscard'))));
    }
    clear(voice, h('button', { type: 'button', class: 'block', id: 'gb-record', onclick: record }, '🎙️ ' + t('gbRecord')));
  };
  const record = async () => {
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch {
      return toast(t('gbNoMic'), 'bad');
    }
    const type = ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/mp4', 'audio/webm'].find((m) => MediaRecorder.isTypeSupported(m));
    const rec = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
    const chunks = [];
    const started = Date.now();
    rec.ondataavailable = (e) => { if (e.data.size) chunks.push(e.data); };
    const label = h('span', null, t('gbRecording', { s: '0:00' }));
    const clock = setInterval(() => {
      const s = Math.floor((Date.now() - started) / 1000);
      label.textContent = t('gbRecording', { s: `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}` });
      if (s >= 295) rec.stop(); // the box takes at most 5 minutes
    }, 500);
    rec.onstop = () => {
      clearInterval(clock);
      stream.getTracks().forEach((tr) => tr.stop());
      const seconds = Math.max(1, Math.round((Date.now() - started) / 1000));
      audio = { blob: new Blob(chunks, { type: rec.mimeType || type || 'audio/webm' }), seconds };
      drawVoice();
    };
    rec.start(1000);
    clear(voice, h('div', { class: 'row' }, h('span', { class: 'rec-dot' }), label, h('span', { class: 'grow' }),
      h('button', { type: 'button', class: 'primary', onclick: () => rec.stop() }, t('gbStop'))));
  };
  const mine = h('div', { id: 'gb-mine' });
  const form = h('form', { class: 'card', novalidate: true },
    h('h3', { style: 'margin-top:0' }, t('gbTitle')),
    h('div', { class: 'field' }, h('label', { for: 'gb-text' }, t('gbText')), text),
    voice, err,
    h('button', { class: 'primary block', type: 'submit', style: 'margin-top:10px' }, t('send')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.textContent = '';
    if (!text.value.trim() && !audio) { err.textContent = t('gbEmpty'); return; }
    const fd = new FormData();
    if (text.value.trim()) fd.append('text', text.value.trim());
    if (audio) {
      const ext = audio.blob.type.includes('mp4') ? 'm4a' : audio.blob.type.includes('ogg') ? 'ogg' : 'webm';
      fd.append('seconds', String(audio.seconds));
      fd.append('audio', audio.blob, 'voice.' + ext);
    }
    const btn = form.querySelector('button[type=submit]');
    btn.disabled = true;
    try {
      const res = await api(base + '/messages', { method: 'POST', body: fd });
      text.value = '';
      audio = null;
      drawVoice();
      toast(res.message && res.message.status === 'pending' ? t('gbSentPending') : t('gbSent'));
      drawMine();
    } catch (x) {
      err.textContent = x.code === 'bad_request' ? Object.values(x.details).join(' ') || t('genericError') : errMsg(x);
    } finally {
      btn.disabled = false;
    }
  });
  const drawMine = async () => {
    let messages = [];
    try {
      ({ messages } = await api(base + '/messages'));
    } catch {
      return clear(mine);
    }
    clear(mine, messages.length ? h('h3', null, t('gbMine')) : null, messages.map((m) => h('div', { class: 'msg' },
      h('div', { class: 'spread' }, h('span', { class: 'small muted' }, fmtTime(m.createdAt, lang),
        m.status === 'pending' ? ' · ' + t('pending') : ''),
      h('button', {
        class: 'small linkish', onclick: async () => {
          if (!confirm(t('gbDeleteConfirm'))) return;
          try {
            await api(`${base}/messages/${encodeURIComponent(m.id)}`, { method: 'DELETE' });
            drawMine();
          } catch (x) { toast(errMsg(x), 'bad'); }
        },
      }, t('delete'))),
      m.text ? h('p', { style: 'white-space:pre-wrap;margin:4px 0' }, m.text) : null,
      m.hasAudio ? h('audio', { controls: true, preload: 'none', src: `/api/messages/${encodeURIComponent(m.id)}/audio` }) : null)));
  };
  drawVoice();
  clear(panel, form, mine);
  drawMine();
}

main();
