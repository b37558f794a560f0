// @ts-check
// The gallery page, /g/<token>: a read-only view of an event's visible
// photos through a gallery link, with its password form; the event's
// logo and a cover photo, the hosts' favourites, every photo in the order
// it was taken with filters by guest, place and challenge, the viewer and
// a full-screen slideshow, the ZIP download and, when the hosts share it,
// the guestbook.
import { api, h, $, clear, toast, errorText, secretForm, fmtDate, fmtTime, setAccent, infinite, mediaURL, safeImg, icon, downloadLink, voiceNote, guestLabel } from './lib.js';
import { loadI18n, pickLang, saveLang, LANGS } from './i18n.js';
import { openLightbox } from './lightbox.js';
import { when, filterBar, filtered } from './album-filters.js';
import { heartsOf, lovedFirst } from './hearts.js';

const app = $('#app');
const token = decodeURIComponent(location.pathname.split('/')[2] || '');
const base = '/api/g/' + encodeURIComponent(token);
/** @type {import('./i18n.js').Translate} */
let t = (k) => k;
let lang = 'en';
let data = null;
let tab = 'photos';
// hearts are this browser's hearts (hearts.js); loved puts the most
// loved first.
let hearts = null;
let loved = false;

const errMsg = (e) => errorText(t, e);

function fail(text, retry) {
  clear(app, h('main', { class: 'wrap narrow center', style: 'padding-top:18vh' },
    h('p', { class: 'banner bad' }, text), retry ? h('button', { onclick: retry }, t('retry')) : null,
    // A way back: the front page lists the events and takes a code.
    h('p', null, h('a', { class: 'btn', href: '/' }, t('indexBack')))));
}

async function main() {
  ({ t, lang } = await loadI18n(pickLang(null)));
  hearts = heartsOf(base, t, (e) => toast(errMsg(e), 'bad'));
  if (!token) return fail(t('galleryNotFound'));
  try {
    data = await api(base);
  } catch (e) {
    if (e.status === 404) return fail(t('galleryNotFound'));
    return fail(errMsg(e), main);
  }
  setAccent(data.event.accentColor);
  document.title = data.event.name;
  if (data.share.needsPassword && !data.share.unlocked) return passwordView();
  galleryView();
}

function header() {
  const { event: ev, share } = data;
  const picker = h('select', { class: 'lang', 'aria-label': t('language') },
    Object.entries(LANGS).map(([k, v]) => h('option', { value: k, selected: k === lang }, v)));
  picker.addEventListener('change', () => { saveLang(picker.value); location.reload(); });
  return h('header', { class: 'hero' },
    h('div', { class: 'row end' }, picker),
    ev.logoVersion ? safeImg({ class: 'logo', src: `${base}/logo?v=${ev.logoVersion}` }) : null,
    h('h1', null, ev.name),
    ev.eventDate ? h('div', { class: 'date' }, fmtDate(ev.eventDate, lang)) : null,
    // The link the box made at the end carries a fixed English label.
    share.label ? h('p', null, share.label === 'Made when the event ended' ? t('galleryEndLabel') : share.label) : null,
    share.favoritesOnly ? h('p', { class: 'small muted' }, t('galleryFavorites')) : null,
    share.expiresAt ? h('p', { class: 'small muted' }, t('galleryUntil', { date: fmtTime(share.expiresAt, lang) })) : null);
}

function passwordView() {
  const { form, input } = secretForm(t, {
    input: h('input', { type: 'password', id: 'gallery-password', autocomplete: 'off' }),
    title: t('galleryLocked'), hint: t('galleryLockedHint'), label: t('passwordLabel'), button: t('open'), wrong: t('passwordWrong'),
    send: async (value) => {
      await api(base + '/unlock', { method: 'POST', body: { password: value } });
      data = await api(base);
      data.share.unlocked = true;
      galleryView();
    },
  });
  clear(app, h('main', { class: 'wrap narrow' }, header(), form));
  input.focus();
}

// Every visible photo of the link, loaded once (a few requests even for
// thousands of photos), so the page can sort them by when they were
// taken and filter by guest, place and challenge without asking again.
let all = null;
let favorites = [];
const filter = { guest: '', spot: '', challenge: '' };

async function loadAll() {
  const list = [];
  let cursor;
  do {
    const q = new URLSearchParams();
    if (cursor) q.set('before', cursor);
    const res = await api(`${base}/photos?${q}`);
    list.push(...res.photos);
    cursor = res.nextCursor;
  } while (cursor && list.length < 20000);
  list.sort((a, b) => when(a) - when(b));
  return list;
}

async function loadFavorites() {
  if (data.share.favoritesOnly) return [];
  try {
    const res = await api(`${base}/photos?favorites=1`);
    return res.photos.sort((a, b) => when(a) - when(b));
  } catch {
    return [];
  }
}

function galleryView() {
  const { event: ev, share } = data;
  const tabs = [['photos', t('galleryPhotos')]];
  if (ev.guestbook) tabs.push(['guestbook', t('tabGuestbook')]);
  clear(app, h('main', { class: 'wrap' },
    header(),
    h('div', { id: 'cover' }),
    h('div', { class: 'row', id: 'gallery-actions', style: 'justify-content:center' },
      share.allowDownload ? h('a', { class: 'btn primary', id: 'download-all', href: base + '/archive', download: '' }, '⬇ ' + t('downloadAll')) : null),
    tabs.length > 1 ? h('nav', { class: 'tabs', role: 'tablist' }, tabs.map(([k, l]) => h('button', {
      role: 'tab', id: 'tab-' + k, 'aria-selected': k === tab ? 'true' : 'false', onclick: () => { tab = k; galleryView(); },
    }, l))) : null,
    h('section', { id: 'panel' })));
  if (tab === 'guestbook') return messages($('#panel'));
  photos($('#panel'));
}

// tileName is a tile's name and placeholder: by whom, when.
const tileName = (p) => [p.video ? t('video') : t('photo'), p.guestName ? t('byGuest', { name: guestLabel(p.guestName, t('boothName')) }) : '', fmtTime(when(p), lang)].filter(Boolean).join(' · ');

function viewer(list, i, autoplay) {
  return openLightbox(list, i, {
    labels: { close: t('close'), prev: t('prev'), next: t('next'), play: t('gallerySlideshow'), pause: t('galleryPause'), unavailable: t('photoUnavailable') },
    slideshow: true,
    autoplay,
    caption: (q) => tileName(q),
    name: tileName,
    actions: (q) => [hearts.button(q), data.share.allowDownload ? downloadLink(q, t('download')) : null],
  });
}

function tile(p, list) {
  // The open button and the heart over its corner are siblings.
  const open = h('button', { type: 'button', class: 'open' },
    h('span', { class: 'ph' }, tileName(p)),
    safeImg({ src: mediaURL(p.id, 'thumb'), loading: 'lazy', decoding: 'async' }),
    p.video ? h('span', { class: 'play' }, icon('play')) : null);
  open.addEventListener('click', () => viewer(list, list.indexOf(p)));
  return h('div', { class: 'tile', dataset: { id: p.id } }, open, hearts.tileButton(p));
}

// cover fills the header's wide picture: the hosts' first favourite,
// else the first photo of the day.
function cover() {
  const p = favorites.find((x) => !x.video) || all.find((x) => !x.video);
  const box = $('#cover');
  if (!box || !p) return;
  clear(box, h('figure', { class: 'cover' }, safeImg({ src: mediaURL(p.id, 'display'), alt: t('galleryCover') })));
}

async function photos(panel) {
  const note = h('p', { class: 'muted center small' }, t('loading'));
  clear(panel, note);
  if (!all) {
    try {
      [all, favorites] = await Promise.all([loadAll(), loadFavorites()]);
      await hearts.load(all);
    } catch (e) {
      if (e.status === 403) { data.share.unlocked = false; passwordView(); return; }
      clear(note, errMsg(e), ' ', h('button', { class: 'small', onclick: () => photos(panel) }, t('retry')));
      return;
    }
  }
  cover();
  const actions = $('#gallery-actions');
  if (actions && all.length && !$('#slideshow-all')) {
    actions.append(h('button', { id: 'slideshow-all', onclick: () => viewer(shownList(), 0, true) }, '▶ ' + t('gallerySlideshow')));
  }
  const filters = filterBar(t, lang, all, data.event, filter, () => drawGrid());
  const favs = favorites.length ? h('section', { id: 'gallery-favorites' },
    h('h2', null, t('galleryFavoritesTitle')),
    h('div', { class: 'grid' }, favorites.map((p) => tile(p, favorites)))) : null;
  const grid = h('div', { class: 'grid', id: 'gallery-photos' });
  const count = h('p', { class: 'small muted', id: 'gallery-count' });
  clear(panel, favs, h('h2', null, t('galleryAllTitle')), filters, lovedToggle(() => drawGrid()), count, grid, note);
  const drawGrid = () => {
    const list = shownList();
    clear(grid, list.map((p) => tile(p, list)));
    count.textContent = t('galleryCount', { n: list.length });
    note.textContent = list.length ? '' : t('galleryEmpty');
  };
  drawGrid();
}

// shownList is the photos the filters keep, in the order taken, or the
// most loved first.
function shownList() {
  const list = filtered(all, filter);
  return loved ? lovedFirst(list, hearts.count) : list;
}

// lovedToggle switches the grid between the order taken and the most
// loved first.
function lovedToggle(redraw) {
  const b = h('button', { type: 'button', class: 'small', id: 'loved-first', 'aria-pressed': loved ? 'true' : 'false' }, '♥ ' + t('heartsLovedFirst'));
  b.addEventListener('click', () => {
    loved = !loved;
    b.setAttribute('aria-pressed', loved ? 'true' : 'false');
    redraw();
  });
  return h('div', { class: 'row' }, b);
}

function messages(panel) {
  const box = h('div', { id: 'gallery-messages' });
  const sentinel = h('div', { class: 'sentinel' });
  const note = h('p', { class: 'muted center small' });
  let cursor;
  clear(panel, box, sentinel, note);
  infinite(sentinel, async () => {
    if (cursor === null) return false;
    const q = cursor ? '?before=' + cursor : '';
    try {
      const res = await api(`${base}/messages${q}`);
      box.append(...res.messages.map((m) => h('div', { class: 'msg' },
        h('div', { class: 'spread' }, h('span', { class: 'who' }, m.guestName || t('aGuest')), h('span', { class: 'small muted' }, fmtTime(m.createdAt, lang))),
        m.text ? h('p', { style: 'white-space:pre-wrap;margin:4px 0' }, m.text) : null,
        m.hasAudio ? voiceNote(m, t('voicePlay')) : null)));
      cursor = res.nextCursor;
      return cursor !== null;
    } catch (e) {
      clear(note, errMsg(e));
      return false;
    }
  });
}

main();
