// The gallery page, /g/<token>: a read-only view of an event's visible
// photos through a gallery link, with its password form, challenge
// filter, lightbox, ZIP download and, when the hosts share it, the
// guestbook.
import { api, h, $, clear, errorText, secretForm, fmtDate, fmtTime, setAccent, infinite, mediaURL } from './lib.js';
import { loadI18n, pickLang, saveLang, LANGS } from './i18n.js';
import { openLightbox } from './lightbox.js';

const app = $('#app');
const token = decodeURIComponent(location.pathname.split('/')[2] || '');
const base = '/api/g/' + encodeURIComponent(token);
let t = (k) => k;
let lang = 'en';
let data = null;
let tab = 'photos';
let challenge = '';

const errMsg = (e) => errorText(t, e);

function fail(text, retry) {
  clear(app, h('main', { class: 'wrap narrow center', style: 'padding-top:18vh' },
    h('p', { class: 'banner bad' }, text), retry ? h('button', { onclick: retry }, t('retry')) : null,
    // A way back: the front page lists the events and takes a code.
    h('p', null, h('a', { class: 'btn', href: '/' }, t('indexBack')))));
}

async function main() {
  ({ t, lang } = await loadI18n(pickLang(null)));
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
    h('h1', null, ev.name),
    ev.eventDate ? h('div', { class: 'date' }, fmtDate(ev.eventDate, lang)) : null,
    share.label ? h('p', null, share.label) : null,
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

function galleryView() {
  const { event: ev, share } = data;
  const tabs = [['photos', t('galleryPhotos')]];
  if (ev.guestbook) tabs.push(['guestbook', t('tabGuestbook')]);
  clear(app, h('main', { class: 'wrap' },
    header(),
    share.allowDownload ? h('p', { class: 'center' }, h('a', { class: 'btn primary', id: 'download-all', href: base + '/archive', download: '' }, '⬇ ' + t('downloadAll'))) : null,
    tabs.length > 1 ? h('nav', { class: 'tabs', role: 'tablist' }, tabs.map(([k, l]) => h('button', {
      role: 'tab', id: 'tab-' + k, 'aria-selected': k === tab ? 'true' : 'false', onclick: () => { tab = k; galleryView(); },
    }, l))) : null,
    h('section', { id: 'panel' })));
  if (tab === 'guestbook') return messages($('#panel'));
  photos($('#panel'));
}

function photos(panel) {
  const ev = data.event;
  const list = [];
  let cursor;
  const grid = h('div', { class: 'grid', id: 'gallery-photos' });
  const sentinel = h('div', { class: 'sentinel' });
  const note = h('p', { class: 'muted center small' });
  const chips = (ev.challenges || []).length ? h('div', { class: 'challenges', role: 'group' },
    [{ id: '', label: t('allChallenges') }, ...ev.challenges].map((c) => h('button', {
      type: 'button', 'aria-pressed': challenge === c.id ? 'true' : 'false',
      onclick: () => { challenge = c.id; photos(panel); },
    }, c.label))) : null;
  clear(panel, chips, grid, sentinel, note);
  const tile = (p) => {
    const b = h('button', { type: 'button', class: 'tile', dataset: { id: p.id } },
      h('img', { src: mediaURL(p.id, 'thumb'), alt: '', loading: 'lazy', decoding: 'async' }),
      p.video ? h('span', { class: 'play' }, '▶') : null);
    b.addEventListener('click', () => openLightbox(list, list.indexOf(p), {
      labels: { close: t('close'), prev: t('prev'), next: t('next') },
      caption: (q) => (q.guestName ? t('byGuest', { name: q.guestName }) : ''),
      actions: (q) => (data.share.allowDownload ? [h('a', { class: 'btn small', href: mediaURL(q.id, 'original', true), download: '' }, t('download'))] : []),
    }));
    return b;
  };
  infinite(sentinel, async () => {
    if (cursor === null) return false;
    const q = new URLSearchParams();
    if (challenge) q.set('challenge', challenge);
    if (cursor) q.set('before', cursor);
    try {
      const res = await api(`${base}/photos?${q}`);
      list.push(...res.photos);
      grid.append(...res.photos.map(tile));
      cursor = res.nextCursor;
      note.textContent = list.length ? '' : t('galleryEmpty');
      return cursor !== null;
    } catch (e) {
      if (e.status === 403) { data.share.unlocked = false; passwordView(); return false; }
      clear(note, errMsg(e), ' ', h('button', { class: 'small', onclick: () => photos(panel) }, t('retry')));
      return false;
    }
  });
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
        m.hasAudio ? h('audio', { controls: true, preload: 'none', src: `/api/messages/${encodeURIComponent(m.id)}/audio` }) : null)));
      cursor = res.nextCursor;
      return cursor !== null;
    } catch (e) {
      clear(note, errMsg(e));
      return false;
    }
  });
}

main();
