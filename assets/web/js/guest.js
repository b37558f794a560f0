// @ts-check
// The guest page, /e/<slug>[?at=<spot>]: join or unlock the event, give a
// name, take or pick photos (and videos) into the retrying upload queue,
// see my photos and, when the album is shared, everyone's; the guestbook
// with text and voice notes; a contact address for the gallery mail.
// With ?booth=<key> the page becomes the event's photo booth (booth.js).
import { api, ApiError, fmtBytes, h, $, clear, toast, errorText, secretForm, fmtDate, fmtTime, setAccent, infinite, mediaURL, icon, safeImg, fmtSeconds, downloadLink, voiceNote, guestLabel } from './lib.js';
import { loadI18n, pickLang, saveLang, LANGS } from './i18n.js';

// The code the first screens (the access code, the name) do not use: the
// upload queue, the viewer, the capture filters, the album's filters and
// the hearts. loadRest fetches it while the guest reads the first screen,
// so that screen waits only for lib.js, i18n.js and this file
// (TestGuestSeesTheEventNameSoonOnASlowHotspot).
let UploadQueue, sendResumable, openLightbox, FILTERS, applyFilter, when, filterBar, filtered, heartsOf;
let rest = null;
function loadRest() {
  if (!rest) {
    rest = Promise.all([import('./queue.js'), import('./lightbox.js'), import('./filters.js'), import('./album-filters.js'), import('./hearts.js')])
      .then(([q, l, f, a, hm]) => {
        ({ UploadQueue, sendResumable } = q);
        ({ openLightbox } = l);
        ({ FILTERS, applyFilter } = f);
        ({ when, filterBar, filtered } = a);
        ({ heartsOf } = hm);
      });
    rest.catch(() => { rest = null; });
  }
  return rest;
}

const app = $('#app');
const slug = decodeURIComponent(location.pathname.split('/')[2] || '').toLowerCase();
const params = new URLSearchParams(location.search);
const spot = params.get('at') || '';
const boothKey = params.get('booth') || new URLSearchParams(location.hash.slice(1)).get('booth') || '';
const base = '/api/e/' + encodeURIComponent(slug);

/** @type {import('./i18n.js').Translate} */
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

// loadEvent asks for the event; first (the page's first call) takes the
// answer the page's Link header preloaded (daemon/ui.go, preloads), which
// a no-store request would ask for again.
async function loadEvent(first = false) {
  data = await api(base, first ? { cache: 'default' } : {});
  return data;
}

async function main() {
  if (!slug) {
    location.replace('/');
    return;
  }
  // The event and the catalogue of the language the guest would read
  // without the event's default (their choice, else the phone's) are asked
  // for together: one round trip, not two, before the first screen. Only
  // an event whose default language is another asks again.
  const guess = pickLang(null);
  const guessed = loadI18n(guess);
  try {
    await loadEvent(true);
  } catch (e) {
    t = (await guessed).t;
    if (e.status === 404) return fail(t('eventNotFound'));
    return fail(errMsg(e), main);
  }
  const ev = data.event;
  if (!boothKey) loadRest();
  const want = pickLang(ev.defaultLocale);
  // Both settled, the page's language is the one wanted (loadI18n marks
  // the page with the language it loaded, the guess's included).
  const [, mine] = await Promise.all([guessed, want === guess ? guessed : loadI18n(want)]);
  ({ t, lang } = mine);
  document.documentElement.lang = lang;
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
      err.textContent = x.code === 'bad_request' ? t('nameBad') : errMsg(x);
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

/**
 * refusal is why a file was not sent, as the end of "Not sent: …", with
 * the box's limit named when one applies (item: the queue item, for
 * whether it is a video).
 */
const refusal = (code, item) => {
  const lim = data.event.limits || {};
  const video = item && item.kind === 'video';
  const bytes = video ? lim.videoBytes : lim.imageBytes;
  if (code === 'too_large' && bytes) return t('errTooLargeLimit', { mb: Math.round(bytes / 1048576) });
  if (code === 'video_too_long' && lim.videoSeconds) return t('errVideoTooLongLimit', { len: fmtSeconds(lim.videoSeconds) });
  return ({
    too_large: t('errTooLarge'), invalid_image: t('errInvalidImage'), invalid_video: t('errInvalidVideo'),
    video_too_long: t('errVideoTooLong'), videos_off: t('errVideosOff'), uploads_closed: t('errUploadsClosed'),
    quota_reached: t('errQuota'), forbidden: t('errForbidden'), gone: t('errGone'), bad_request: t('errBadRequest'),
    insufficient_storage: t('errFull'), rate_limited: t('errRate'),
  }[code] || t('errUnknown'));
};

// Each view below fills a part of the main page and can redraw itself.
// cut: the names of the files a quota left unsent, shown until dismissed.
let state = { challenge: '', filter: '', tab: 'mine', cut: null };

/** mainView draws the page of a guest who is in, once its code is here. */
async function mainView() {
  try {
    await loadRest();
  } catch {
    return fail(t('offline'), mainView);
  }
  drawMain();
}

function drawMain() {
  const ev = data.event;
  if (!queue) {
    queue = new UploadQueue(slug, {
      limits: ev.limits,
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
    // The challenge chosen before a reload, if the hosts still offer it.
    state.challenge = ev.challenges.some((c) => c.id === queue.challenge) ? queue.challenge : '';
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
      const picked = [...input.files];
      input.value = '';
      // Files over the box's limits are refused here, named, never sent.
      queue.newBatch();
      const files = [];
      for (const f of picked) {
        const code = queue.precheck(f);
        if (code) queue.reject(f, code);
        else files.push(f);
      }
      const left = quotaLeft();
      // A quota that cuts the selection says which files stay unsent.
      state.cut = files.length > left ? { sent: left, names: files.slice(left).map((f) => f.name || '?') } : null;
      if (state.cut) drawQueue();
      const filter = state.filter;
      if (!files.length) showQueue();
      Promise.all(files.slice(0, left).map((f) => (filter ? applyFilter(f, filter) : f)))
        .then((ready) => {
          const added = queue.add(ready, { challenge: state.challenge, at: spot, sameBatch: true });
          showQueue();
          return added;
        })
        .then(drawCapture);
    });
    return input;
  };
  // The buttons are <input type=file capture>: the phone's own camera
  // app, which needs no secure context, so they work on the box's plain
  // http:// address too.
  const button = (glyph, label, input, primary, id) => h('label', { class: 'btn block' + (primary ? ' primary' : ''), id },
    icon(glyph), h('span', null, label), input);
  const mode = ev.captureMode;
  const buttons = [];
  if (mode !== 'picker') {
    buttons.push(button('camera', t('takePhoto'), pick('image/*', 'environment'), true, 'take-photo'));
    if (ev.allowVideos) buttons.push(button('video', t('recordVideo'), pick('video/*', 'environment'), false, 'record-video'));
  }
  if (mode !== 'camera') {
    buttons.push(button('image', ev.allowVideos ? t('chooseMedia') : t('choosePhotos'),
      pick(ev.allowVideos ? 'image/*,video/*' : 'image/*', null, true), mode === 'picker', 'pick-photos'));
  }
  const chips = ev.challenges.length ? h('div', null,
    h('h2', { class: 'h3' }, t('challengesTitle')),
    h('p', { class: 'small muted', style: 'margin:0 0 6px' }, t('challengeHint')),
    h('div', { class: 'challenges', role: 'group' },
      [{ id: '', label: t('challengeNone') }, ...ev.challenges].map((c) => h('button', {
        type: 'button', 'aria-pressed': state.challenge === c.id ? 'true' : 'false',
        onclick: () => { state.challenge = c.id; queue.setChallenge(c.id); drawCapture(); },
      }, c.label)))) : null;
  const offered = (ev.captureFilters.enabled || []).filter((f) => FILTERS[f]);
  const filters = offered.length ? h('div', null,
    h('h2', { class: 'h3' }, t('filtersTitle')),
    h('div', { class: 'challenges', role: 'group', id: 'filters' },
      ['', ...offered].map((f) => h('button', {
        type: 'button', 'aria-pressed': state.filter === f ? 'true' : 'false', dataset: { filter: f },
        onclick: () => { state.filter = f; drawCapture(); },
      }, t(f ? 'filter_' + f : 'filter_none'))))) : null;
  const notes = [];
  if (ev.uploadsCloseAt) notes.push(t('closesAt', { time: fmtTime(ev.uploadsCloseAt, lang) }));
  if (ev.maxPhotosPerGuest) notes.push(t('quotaInfo', { left: quotaLeft(), max: ev.maxPhotosPerGuest }));
  if (ev.allowVideos && ev.limits && ev.limits.videoSeconds) notes.push(t('videoLimitInfo', { len: fmtSeconds(ev.limits.videoSeconds) }));
  clear(box, chips, filters, h('div', { class: 'capture' }, buttons),
    notes.length ? h('p', { class: 'small muted center' }, notes.join(' ')) : null);
}

// showQueue brings the queue into view once files are picked: on a phone
// it is below the buttons, out of sight.
function showQueue() {
  const box = $('#queue');
  if (!box) return;
  const still = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  requestAnimationFrame(() => box.scrollIntoView({ block: 'start', behavior: still ? 'auto' : 'smooth' }));
}

const thumbURLs = new Map();
// Formats a phone's browser can draw; a HEIC (and anything else) gets
// the placeholder with its name instead of a broken image.
const DRAWABLE = /^image\/(jpeg|png|gif|webp|avif|bmp)$/;
function localThumb(item) {
  if (!thumbURLs.has(item.id)) {
    const src = item.kind === 'video' ? item.poster : DRAWABLE.test(item.type || '') ? item.blob : null;
    thumbURLs.set(item.id, src ? URL.createObjectURL(src) : '');
  }
  return thumbURLs.get(item.id);
}

// qthumb is the small picture of a queued file: its own pixels when the
// browser can draw them, else (and meanwhile) a grey square with the
// file's type, e.g. HEIC.
function qthumb(item) {
  const ext = ((item.name || '').match(/\.([a-z0-9]{1,5})$/i) || [])[1];
  const url = localThumb(item);
  return h('span', { class: 'qthumb', 'aria-hidden': 'true' }, (ext || (item.kind === 'video' ? 'video' : '')).toUpperCase(),
    url ? safeImg({ src: url }) : null);
}

// sentCount says what the selection sent: "2 photos and 1 video".
function sentCount() {
  const { sent, videos = 0, refused } = queue.batch;
  const photos = sent - videos;
  const what = !videos ? t('allSentPhotos', { n: photos })
    : !photos ? t('allSentVideos', { n: videos })
      : t('allSentBoth', { photos, videos });
  return refused ? what + ' ' + t('someRefused', { n: refused }) : what;
}

// thanks is the queue's end state: the thank-you with what was sent.
const thanks = () => h('div', { class: 'banner good thanks', id: 'queue-done', role: 'status' },
  h('strong', null, t('allSentTitle')), sentCount());

// platform is the phone's kind as its browser says it: 'ios', 'android'
// or '' (not said: a computer, another browser).
function platform() {
  const ua = navigator.userAgent || '';
  if (/iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && navigator.maxTouchPoints > 1)) return 'ios';
  if (/Android/i.test(ua)) return 'android';
  return '';
}

// leaveWifi says, once all is sent, that the guest may leave the box's
// Wi-Fi: its radio holds only a few phones at once (about 8 on the Pi's
// own), and the phone's own internet comes back. The steps are the
// phone's (both when the browser does not say which); the QR code brings
// the page, and anything still to send, back later.
function leaveWifi() {
  const p = platform();
  const steps = [];
  if (p !== 'android') steps.push(['ios', t('leaveIphone')]);
  if (p !== 'ios') steps.push(['android', t('leaveAndroid')]);
  return h('div', { class: 'card leave', id: 'leave-wifi' },
    h('h2', { class: 'h3' }, t('leaveTitle')),
    h('p', null, t('leaveWhy')),
    // One phone's steps are a sentence; both, a list.
    steps.length === 1 ? h('p', { dataset: { platform: steps[0][0] } }, steps[0][1])
      : h('ul', { class: 'leave-steps' }, steps.map(([k, text]) => h('li', { dataset: { platform: k } }, text))),
    h('p', { class: 'small muted' }, t('leaveLater')));
}

// overall is the one line over the list: "4 of 6 sent", and "retry now"
// when the box cannot be reached.
function overall() {
  const { sent } = queue.batch;
  const pending = queue.pending;
  if (!pending) return null;
  return h('div', { class: 'overall', id: 'queue-overall', role: 'status' },
    h('strong', null, t('queueOverall', { sent, total: sent + pending })),
    (() => {
      const b = queue.selectionBytes;
      return b.total ? h('span', { class: 'small', id: 'queue-bytes' }, t('queueOverallBytes', { sent: fmtBytes(b.sent), total: fmtBytes(b.total) })) : null;
    })(),
    queue.unreachable ? h('span', { class: 'row' }, h('span', { class: 'small muted' }, t('queueUnreachable')),
      h('button', { class: 'small primary', id: 'queue-retry', onclick: () => queue.wake() }, t('retryNow'))) : null);
}

let ticking = null;
function drawQueue() {
  const box = $('#queue');
  if (!box) return;
  const items = queue.items;
  for (const [id, url] of thumbURLs) {
    if (!items.some((i) => i.id === id)) { if (url) URL.revokeObjectURL(url); thumbURLs.delete(id); }
  }
  const cut = state.cut ? h('div', { class: 'banner', id: 'quota-cut', role: 'alert' },
    t('quotaCut', { n: state.cut.sent, max: data.event.maxPhotosPerGuest }), ' ',
    h('strong', null, t('quotaCutNames', { n: state.cut.names.length, names: state.cut.names.join(', ') })), ' ',
    h('button', { class: 'linkish', onclick: () => { state.cut = null; drawQueue(); } }, t('dismiss'))) : null;
  const now = Date.now();
  const status = (i) => {
    if (queue.stopped && i.state === 'waiting') return t('queueStopped', { reason: refusal(queue.stopped, i) });
    switch (i.state) {
      case 'preparing': return t('queuePreparing');
      case 'uploading': return t('queueUploading', { sent: fmtBytes(i.sent || 0), total: fmtBytes(UploadQueue.total(i)) });
      case 'offline': return t('queueOffline');
      case 'sent': return t('queueSent');
      case 'failed': return t('queueFailed', { reason: refusal(i.error, i) });
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
  const row = (i) => h('li', { dataset: { state: i.state } },
    qthumb(i),
    h('div', { class: 'grow' },
      h('div', { class: 'qname' }, i.name),
      h('div', { class: i.state === 'failed' || i.state === 'held' ? 'form-err' : '' }, status(i)),
      i.state === 'uploading' || i.state === 'sent' ? h('progress', { max: 1, value: i.progress, 'aria-label': i.name }) : null),
    i.state === 'held' ? h('button', { class: 'small', onclick: () => queue.retryHeld(i.id) }, t('retry')) : null,
    i.state !== 'uploading' && i.state !== 'sent' ? h('button', { class: 'small', onclick: () => queue.remove(i.id), 'aria-label': t('removeFile', { name: i.name }) }, '✕') : null);
  // All in: the thank-you alone (the files are in My photos), the files
  // the box refused with their reason, and the way off the Wi-Fi.
  if (queue.done) {
    const refused = items.filter((i) => i.state === 'failed');
    clear(box, cut, thanks(), refused.length ? h('ul', { class: 'queue', id: 'queue-list' }, refused.map(row)) : null, leaveWifi());
  } else if (!items.length) {
    clear(box, cut);
  } else {
    clear(box, cut, h('h2', { class: 'h3' }, t('queueTitle')), overall(),
      h('ul', { class: 'queue', id: 'queue-list' }, items.map(row)),
      queue.pending ? h('p', { class: 'small muted' }, t('queueKept')) : null);
  }
  const waiting = items.some((i) => i.state === 'waiting' && i.retryAt > now);
  if (waiting && !ticking) ticking = setInterval(() => drawQueue(), 1000);
  if (!waiting && ticking) { clearInterval(ticking); ticking = null; }
}

/** drawGallery shows, once the event has ended, the gallery link made then
 * and whether its mail went out, in place of the promise to send it. */
function drawGallery(box, gal) {
  const mail = { sent: 'galleryMailSent', pending: 'galleryMailPending', failed: 'galleryMailFailed' }[gal.mail];
  clear(box, h('div', { class: 'card', id: 'gallery-ready' },
    h('h2', { class: 'h3', style: 'margin-top:0' }, t('galleryReadyTitle')),
    h('p', { class: 'small muted' }, t('galleryReadyHint')),
    h('p', null, h('a', { class: 'btn primary', href: gal.url }, t('galleryOpenLink'))),
    h('p', { class: 'small mono', style: 'word-break:break-all' }, gal.url),
    gal.needsPassword ? h('p', { class: 'small' }, t('galleryNeedsPassword')) : null,
    gal.expiresAt ? h('p', { class: 'small muted' }, t('galleryUntil', { date: new Date(gal.expiresAt).toLocaleDateString() })) : null,
    mail ? h('p', { class: 'small', dataset: { mail: gal.mail } }, t(mail)) : null));
}

function drawContact() {
  const box = $('#contact');
  const ev = data.event;
  const gal = data.guest && data.guest.gallery;
  if (box && gal) return drawGallery(box, gal);
  // After the end, an address left now would get no mail: the mails were
  // queued when the event ended.
  if (!box || !ev.collectGuestEmails || ev.ended) return;
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
    h('h2', { class: 'h3', style: 'margin-top:0' }, t('emailTitle')),
    h('p', { class: 'small muted' }, t('emailHint')),
    h('div', { class: 'field' }, h('label', { for: 'contact-email' }, t('emailLabel')), input, err),
    h('button', { type: 'submit', class: 'block' }, t('emailSave')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.textContent = '';
    try {
      const res = await api(base + '/contact', { method: 'POST', body: { email: input.value.trim(), locale: lang } });
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
  if (state.tab === 'all') return album(panel);
  return photoList(panel, false);
}

// The photo list on screen, so a new upload can be shown at once.
let shown = null;

// tileName is a tile's accessible name: what it is, by whom, when.
function tileName(p, scopeAll) {
  const what = p.video ? t('video') : t('photo');
  const who = scopeAll && p.guestName ? ' ' + t('byGuest', { name: guestLabel(p.guestName, t('boothName')) }) : '';
  return `${what}${who}, ${fmtTime(p.createdAt, lang)}`;
}

function tileFor(p, list, scopeAll) {
  let tries = 0;
  // again asks for the thumb into el once more, a little later each time.
  const again = (el, step) => {
    if (tries++ < 6) setTimeout(() => { el.src = mediaURL(p.id, 'thumb') + '&r=' + tries; }, step * tries);
  };
  // Variants are made just after the upload: wait for the thumb. Until
  // it shows (and when the box is out of reach) the tile says what it is.
  const img = safeImg({ loading: 'lazy', decoding: 'async' }, () => again(img, 1500));
  if (p.thumbReady === false) {
    // The box is still making the thumb (a photo just sent): show the
    // camera's own small preview at once, ask for the thumb once it has
    // come (so every tile's preview goes before any thumb), and show the
    // thumb when the box has made it.
    img.addEventListener('load', () => {
      const full = new Image();
      full.onload = () => {
        // The box answers its square placeholder while it cannot make the
        // thumb yet (a failed attempt waits for its retry): the preview
        // stays, and the thumb is asked again later.
        if (full.naturalWidth !== full.naturalHeight || p.width === p.height) img.src = full.src;
        else again(full, 5000);
      };
      full.onerror = () => again(full, 1500);
      full.src = mediaURL(p.id, 'thumb');
    }, { once: true });
    img.src = mediaURL(p.id, 'preview');
  } else {
    img.src = mediaURL(p.id, 'thumb');
  }
  // The placeholder under the thumbnail is also the open button's name.
  // In the shared album the heart sits over the tile's corner, a button
  // beside the open button, not in it.
  const heartable = scopeAll && p.status === 'visible';
  const open = h('button', { type: 'button', class: 'open' },
    h('span', { class: 'ph' }, tileName(p, scopeAll)),
    img,
    p.status === 'pending' ? h('span', { class: 'badge' }, t('pending')) : p.status === 'hidden' ? h('span', { class: 'badge' }, t('hidden')) : null,
    p.video ? h('span', { class: 'play' }, icon('play')) : null,
    scopeAll && !heartable ? guestHearts().badge(p) : null);
  const tile = h('div', { class: 'tile', dataset: { id: p.id } }, open, heartable ? guestHearts().tileButton(p) : null);
  open.addEventListener('click', () => openLightbox(list, list.indexOf(p), {
    labels: { close: t('close'), prev: t('prev'), next: t('next'), play: t('gallerySlideshow'), pause: t('galleryPause'), unavailable: t('photoUnavailable') },
    slideshow: scopeAll,
    caption: (q) => (scopeAll && q.guestName ? t('byGuest', { name: guestLabel(q.guestName, t('boothName')) }) : fmtTime(q.createdAt, lang)),
    name: (q) => tileName(q, scopeAll),
    actions: (q, close) => [
      scopeAll && q.status === 'visible' ? guestHearts().button(q) : null,
      downloadLink(q, t('download')),
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

/**
 * countdown writes ms as "2 days 03:04:05" in the page's language (the
 * days a plural of the catalogue), or "03:04:05" within a day.
 */
function countdown(ms) {
  const s = Math.ceil(ms / 1000);
  const d = Math.floor(s / 86400);
  const hms = [Math.floor(s / 3600) % 24, Math.floor(s / 60) % 60, s % 60].map((n) => String(n).padStart(2, '0')).join(':');
  return d ? `${t('revealDays', { n: d })} ${hms}` : hms;
}

// guestHearts are this guest's hearts on the shared album (hearts.js).
let hearts = null;
const guestHearts = () => hearts || (hearts = heartsOf(base, t, (e) => toast(errMsg(e), 'bad')));

// The shared album's filters, kept while the guest moves between tabs.
const albumFilter = { guest: '', spot: '', challenge: '' };

// album is the shared album, as the gallery shows it: loaded whole in the
// order taken (order=taken), the hosts' favourites first (favorites=1),
// then every photo with filters by guest, place and challenge.
async function album(panel) {
  const note = h('p', { class: 'muted center small' }, t('loading'));
  clear(panel, note);
  // Reveal later (docs/decisions.md): until revealAt the album is closed
  // to guests; a countdown says when it opens, and the album loads then.
  const revealAt = data.event.revealAt;
  if (revealAt && revealAt > Date.now()) {
    const left = h('strong', { id: 'reveal-countdown' });
    const tick = () => {
      if (!left.isConnected) return;
      const ms = revealAt - Date.now();
      if (ms <= 0) { album(panel); return; }
      left.textContent = countdown(ms);
      setTimeout(tick, 1000);
    };
    clear(panel, h('div', { class: 'card center', id: 'album-reveal' },
      h('p', null, t('revealSoon')), h('p', { class: 'big' }, left), h('p', { class: 'small muted' }, t('revealMine'))));
    tick();
    return;
  }
  let list;
  let favorites;
  try {
    const [all, favs] = await Promise.all([api(`${base}/photos?scope=all&order=taken`), api(`${base}/photos?scope=all&favorites=1&order=taken`)]);
    list = all.photos;
    favorites = favs.photos.sort((a, b) => when(a) - when(b));
    await guestHearts().load(list);
  } catch (e) {
    clear(note, errMsg(e), ' ', h('button', { class: 'small', onclick: () => album(panel) }, t('retry')));
    return;
  }
  if (!panel.isConnected || state.tab !== 'all') return;
  list.sort((a, b) => when(a) - when(b));
  const favs = favorites.length ? h('section', { id: 'album-favorites' },
    h('h2', null, t('galleryFavoritesTitle')),
    h('div', { class: 'grid' }, favorites.map((p) => tileFor(p, favorites, true)))) : null;
  const grid = h('div', { class: 'grid', id: 'all-photos' });
  const count = h('p', { class: 'small muted', id: 'album-count' });
  const draw = () => {
    const shownList = filtered(list, albumFilter);
    clear(grid, shownList.map((p) => tileFor(p, shownList, true)));
    count.textContent = t('galleryCount', { n: shownList.length });
    note.textContent = shownList.length ? '' : t('allEmpty');
    shown = { grid, list: shownList, scopeAll: true, note, album: true };
  };
  const filters = filterBar(t, lang, list, data.event, albumFilter, draw);
  clear(panel, favs, favs ? h('h2', null, t('galleryAllTitle')) : null, filters, count, grid, note);
  draw();
}

function photoArrived(p) {
  drawCapture();
  if (!shown || !shown.grid.isConnected || shown.list.some((x) => x.id === p.id)) return;
  // The album runs in the order taken: a new photo goes at its end.
  if (shown.album) {
    shown.list.push(p);
    shown.grid.append(tileFor(p, shown.list, true));
  } else {
    shown.list.unshift(p);
    shown.grid.prepend(tileFor(p, shown.list, shown.scopeAll));
  }
  shown.note.textContent = '';
}

async function guestbook(panel) {
  const ev = data.event;
  const text = h('textarea', { id: 'gb-text', maxlength: 2000, rows: 3 });
  const err = h('div', { class: 'form-err', role: 'alert' });
  const voice = h('div');
  let audio = null; // { blob, seconds }
  // Without a secure context (the box's plain http:// address) or a
  // MediaRecorder the browser gives no microphone: the same button then
  // opens the phone's own recorder (<input capture>), and the note's
  // length is read from the file.
  const live = window.isSecureContext && window.MediaRecorder && navigator.mediaDevices && navigator.mediaDevices.getUserMedia;
  const recorderApp = () => {
    const input = h('input', { type: 'file', accept: 'audio/*', capture: 'user', id: 'gb-record-file' });
    input.addEventListener('change', async () => {
      const file = input.files[0];
      input.value = '';
      if (!file) return;
      const seconds = await audioLength(file);
      if (!seconds) return toast(t('gbBadAudio'), 'bad');
      if (seconds > 300) return toast(t('gbTooLong'), 'bad');
      audio = { blob: file, seconds };
      drawVoice();
    });
    return h('div', null, h('label', { class: 'btn block filepick', id: 'gb-record' }, icon('mic'), h('span', null, t('gbRecord')), input),
      h('p', { class: 'small muted' }, t('gbRecorderApp')));
  };
  const drawVoice = () => {
    if (!ev.guestbookVoice) return clear(voice);
    if (audio) {
      const url = URL.createObjectURL(audio.blob);
      return clear(voice, h('div', { class: 'row' }, h('audio', { controls: true, src: url, style: 'flex:1' }),
        h('button', { type: 'button', class: 'small', onclick: () => { URL.revokeObjectURL(url); audio = null; drawVoice(); } }, t('gbDiscard'))));
    }
    if (!live) return clear(voice, recorderApp());
    clear(voice, h('button', { type: 'button', class: 'block', id: 'gb-record', onclick: record }, icon('mic'), t('gbRecord')));
  };
  const record = async () => {
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch {
      // Refused or no microphone: the phone's recorder is still there.
      toast(t('gbNoMic'), 'bad');
      return clear(voice, recorderApp());
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
    h('h2', { class: 'h3', style: 'margin-top:0' }, t('gbTitle')),
    h('div', { class: 'field' }, h('label', { for: 'gb-text' }, t('gbText')), text),
    voice, err,
    h('button', { class: 'primary block', type: 'submit', style: 'margin-top:10px' }, t('send')));
  // A voice note goes up resumably (a retry sends only the rest; the
  // upload's address is kept while the form is open); a box without the
  // resumable route takes the form whole.
  const voiceUpload = {};
  const postMessage = async (fd) => {
    if (!audio) return api(base + '/messages', { method: 'POST', body: fd });
    const ext = audio.blob.type.includes('mp4') ? 'm4a' : audio.blob.type.includes('ogg') ? 'ogg' : audio.blob.type.includes('mpeg') ? 'mp3' : 'webm';
    let res;
    try {
      res = await sendResumable(slug, audio.blob, {
        kind: 'voice', filetype: audio.blob.type || 'audio/webm', filename: audio.blob.name || 'voice.' + ext,
        seconds: String(audio.seconds), text: text.value.trim(),
      }, voiceUpload, () => {}, () => {});
    } catch {
      throw new ApiError(0, null, 0);
    }
    if (res.status === -1) return api(base + '/messages', { method: 'POST', body: fd });
    voiceUpload.url = '';
    if (res.status >= 300 || res.status < 200) throw new ApiError(res.status, res.data, res.retryAfter || 0);
    return res.data;
  };
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.textContent = '';
    if (!text.value.trim() && !audio) { err.textContent = t('gbEmpty'); return; }
    const fd = new FormData();
    if (text.value.trim()) fd.append('text', text.value.trim());
    if (audio) {
      const ext = audio.blob.type.includes('mp4') ? 'm4a' : audio.blob.type.includes('ogg') ? 'ogg' : audio.blob.type.includes('mpeg') ? 'mp3' : 'webm';
      fd.append('seconds', String(audio.seconds));
      fd.append('audio', audio.blob, audio.blob.name || 'voice.' + ext);
    }
    const btn = form.querySelector('button[type=submit]');
    btn.disabled = true;
    try {
      const res = await postMessage(fd);
      text.value = '';
      audio = null;
      drawVoice();
      toast(res.message && res.message.status === 'pending' ? t('gbSentPending') : t('gbSent'));
      drawMine();
    } catch (x) {
      // The event ended while the page was open: the form says so.
      if (x.code === 'uploads_closed') { data.event.ended = true; return guestbook(panel); }
      err.textContent = x.code === 'bad_request' ? badRequestText(x) : errMsg(x);
    } finally {
      btn.disabled = false;
    }
  });
  const drawMine = async () => {
    let messages;
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
      m.hasAudio ? voiceNote(m, t('voicePlay')) : null)));
  };
  drawVoice();
  // After the end the box takes no message: say so instead of a form
  // whose Send could only fail.
  clear(panel, ev.ended ? h('div', { class: 'banner', id: 'gb-closed' }, t('gbClosed')) : form, mine);
  drawMine();
}

// badRequestText is a 400's field messages in the guest's words.
function badRequestText(x) {
  const fields = Object.keys(x.details || {});
  if (fields.includes('audio') || fields.includes('seconds')) return t('gbBadAudio');
  if (fields.includes('text')) return t('gbTextBad');
  return t('err_bad_request');
}

// audioLength reads a voice note's length in whole seconds (0: unreadable).
function audioLength(file) {
  return new Promise((resolve) => {
    const url = URL.createObjectURL(file);
    const a = new Audio();
    const done = (s) => { URL.revokeObjectURL(url); resolve(s); };
    a.preload = 'metadata';
    a.onloadedmetadata = () => {
      if (Number.isFinite(a.duration)) return done(Math.max(1, Math.round(a.duration)));
      // Some recorders leave the length out: seek far to make it known.
      a.ondurationchange = () => { if (Number.isFinite(a.duration)) done(Math.max(1, Math.round(a.duration))); };
      a.currentTime = 1e9;
    };
    a.onerror = () => done(0);
    setTimeout(() => done(0), 10000);
    a.src = url;
  });
}

main();
