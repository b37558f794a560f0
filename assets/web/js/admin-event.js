// @ts-check
// One event in the console: creation, the settings form with every field
// of the spec's Event table, and the tabs for places, sharing (guest link,
// QR codes, gallery links, booth, wall) and finishing (downloads, cloud
// export, ending the event). Photos and guestbook live in admin-moderation.js.
import { h, clear, toast, fmtDate, fmtTime } from './lib.js';
import { openLive } from './live.js';
import { phonesEvening } from './admin-phones.js';
import { t, consoleLang } from './admin-i18n.js';
import { LANGS } from './i18n.js';
import { contactsCard, endResult } from './admin-contacts.js';
import {
  call, errText, field, check, select, showErrors, busy, notYet, unavailable, confirmDo,
  msToLocalInput, localInputToMs, copyText, absURL,
} from './admin-ui.js';

// The defaults of a new event, the values of its enum fields and the
// bounds of its other fields come from the daemon (GET /api/admin/event-model,
// the store's event model); the console keeps no copy. What it keeps is
// its own words for each value, and the form.

/** eventModel resolves the daemon's event model; it does not change while the page lives. */
let modelOnce;
function eventModel() {
  modelOnce ??= call('/api/admin/event-model').catch((e) => { modelOnce = undefined; throw e; });
  return modelOnce;
}

/**
 * LABELS are the console's words for the values of the model's enum fields,
 * in the order it offers them. A value without words is offered as it is,
 * after the others.
 */
const LABELS = {
  moderation: { post: t('Show at once, hide later'), pre: t('Review before showing') },
  captureMode: { both: t('Camera and library'), camera: t('Camera only'), picker: t('Library only') },
  // Each language by its own name, from the catalogue (i18n.js).
  defaultLocale: LANGS,
  frame: { none: t('None'), print: t('Print'), border: t('Border'), stamp: t('Stamp') },
  captureFilters: { bw: t('Black & white'), sepia: t('Sepia'), vintage: t('Vintage'), warm: t('Warm'), cool: t('Cool'), vivid: t('Vivid') },
  'wallStyle.layout': { single: t('One photo at a time'), grid: t('A grid of photos') },
  'qrStyle.dots': { square: t('Square'), round: t('Round') },
};

/** choices are the [value, label] pairs of an enum field of the model. */
function choices(model, key) {
  const words = LABELS[key] || {};
  const values = model.values[key] || [];
  return [...Object.keys(words).filter((v) => values.includes(v)), ...values.filter((v) => !(v in words))]
    .map((v) => [v, words[v] ?? v]);
}

/** colorInput is a text field for #rrggbb with a picker beside it. */
function colorInput(name, value, placeholder) {
  const text = h('input', { type: 'text', name, value: value || '', placeholder: placeholder || '#rrggbb', autocapitalize: 'none', spellcheck: 'false', maxlength: 7 });
  const pick = h('input', { type: 'color', value: /^#[0-9a-f]{6}$/i.test(value || '') ? value : '#7a3ff0', 'aria-label': t('Pick a colour'), tabindex: -1 });
  pick.addEventListener('input', () => { text.value = pick.value; });
  text.addEventListener('input', () => { if (/^#[0-9a-f]{6}$/i.test(text.value)) pick.value = text.value.toLowerCase(); });
  const row = h('div', { class: 'color-row' }, text, pick);
  row.input = text;
  return row;
}

/** challengeEditor edits [{ id, label }]: existing rows keep their id. */
function challengeEditor(list, maxLabel) {
  const rows = h('div', { class: 'stack' });
  const add = (c) => {
    const input = h('input', { type: 'text', value: c.label || '', placeholder: t('e.g. A selfie with the couple'), maxlength: maxLabel, dataset: { id: c.id || '' } });
    const row = h('div', { class: 'row' }, h('div', { class: 'grow' }, input),
      h('button', { type: 'button', class: 'small', 'aria-label': t('Remove'), onclick: () => row.remove() }, '✕'));
    rows.append(row);
    return input;
  };
  list.forEach(add);
  const el = h('div', null, rows, h('button', { type: 'button', class: 'small', style: 'margin-top:8px', onclick: () => add({}).focus() }, t('+ Add a challenge')));
  el.value = () => [...rows.querySelectorAll('input')].filter((i) => i.value.trim())
    .map((i) => (i.dataset.id ? { id: i.dataset.id, label: i.value.trim() } : i.value.trim()));
  return el;
}

/**
 * eventForm renders the settings of ev with the model's values and bounds
 * and returns { el, values, changed }. values() reads the form into an
 * Event body; changed() keeps the top-level fields that differ from ev.
 *
 * Each field is one row below: the helpers draw its input and register
 * how to read it (read[name]), so values() lists no field by hand. A text
 * or choice whose default is null is sent as null when left empty.
 */
function eventForm(ev, isNew, model) {
  const lim = model.limits;
  const nullable = (name) => model.defaults[name] === null;
  const read = {};
  const text = (name, attrs) => {
    const el = h('input', { name, type: 'text', value: ev[name] ?? '', ...attrs });
    read[name] = () => el.value.trim() || (nullable(name) ? null : '');
    return el;
  };
  const number = (name, limit, emptyAs, attrs) => {
    const el = h('input', { name, type: 'number', min: limit.min, max: limit.max, value: ev[name] ?? '', inputmode: 'numeric', ...attrs });
    read[name] = () => (el.value === '' ? emptyAs : Number(el.value));
    return el;
  };
  const choice = (name, first) => {
    const el = select(name, [...(first ? [first] : []), ...choices(model, name)], ev[name] ?? '');
    read[name] = () => el.value || (nullable(name) ? null : '');
    return el;
  };
  const chk = (name, label, hint) => {
    const c = check(name, label, ev[name], hint);
    const box = c.querySelector('input');
    read[name] = () => box.checked;
    return c;
  };

  const accent = colorInput('accentColor', ev.accentColor, t('Default purple'));
  read.accentColor = () => accent.input.value.trim() || null;
  const eventDate = h('input', { name: 'eventDate', type: 'date', value: ev.eventDate || '' });
  read.eventDate = () => eventDate.value || null;
  const description = h('textarea', { name: 'description', maxlength: lim.description.max, rows: 3, placeholder: t('Shown to guests above the camera button.') }, ev.description || '');
  read.description = () => description.value.trim();
  const closeAt = h('input', { name: 'uploadsCloseAt', type: 'datetime-local', value: msToLocalInput(ev.uploadsCloseAt) });
  read.uploadsCloseAt = () => localInputToMs(closeAt.value);
  const revealAt = h('input', { name: 'revealAt', type: 'datetime-local', value: msToLocalInput(ev.revealAt) });
  read.revealAt = () => localInputToMs(revealAt.value);
  const challenges = challengeEditor(ev.challenges || [], lim['challenges.label'].max);
  read.challenges = () => challenges.value();
  const filterBoxes = choices(model, 'captureFilters').map(([v, l]) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', value: v, checked: (ev.captureFilters.enabled || []).includes(v) }), l));
  read.captureFilters = () => ({ enabled: filterBoxes.map((l) => l.querySelector('input')).filter((i) => i.checked).map((i) => i.value) });
  const wall = {
    interval: h('input', { type: 'number', min: lim['wallStyle.interval'].min, max: lim['wallStyle.interval'].max, value: ev.wallStyle.interval }),
    layout: select('wallLayout', choices(model, 'wallStyle.layout'), ev.wallStyle.layout),
    showNames: check('wallShowNames', t('Show who took the photo'), ev.wallStyle.showNames),
    showQr: check('wallShowQr', t('Show the QR code to join'), ev.wallStyle.showQr),
  };
  read.wallStyle = () => ({
    interval: wall.interval.value === '' ? null : Number(wall.interval.value), layout: wall.layout.value,
    showNames: wall.showNames.querySelector('input').checked, showQr: wall.showQr.querySelector('input').checked,
  });
  const qr = {
    fg: colorInput('qrForeground', ev.qrStyle.foreground),
    bg: colorInput('qrBackground', ev.qrStyle.background),
    dots: select('qrDots', choices(model, 'qrStyle.dots'), ev.qrStyle.dots),
    logo: check('qrLogo', t('Put the event logo in the middle'), ev.qrStyle.logo),
  };
  read.qrStyle = () => ({ foreground: qr.fg.input.value.trim(), background: qr.bg.input.value.trim(), dots: qr.dots.value, logo: qr.logo.querySelector('input').checked });

  const section = (title, open, ...body) => h('details', { class: 'section', open }, h('summary', null, title), h('div', null, body));
  const el = h('form', { class: 'event-form', novalidate: true },
    section(t('Basics'), true,
      field('name', t('Name'), text('name', { maxlength: lim.name.max, required: true, placeholder: t('Anna & Marco') })),
      h('div', { class: 'two' },
        field('eventDate', t('Date'), eventDate),
        field('accentColor', t('Accent colour'), accent, t('A colour as #rrggbb for the guest pages.'))),
      field('description', t('Welcome text'), description),
      field('defaultLocale', t('Language of the guest pages'), choice('defaultLocale', ['', t('The guest\'s own language')]))),
    section(t('Guests and uploads'), isNew,
      field('accessCode', t('Access code'), text('accessCode', { maxlength: lim.accessCode.max, autocapitalize: 'none', placeholder: t('None: anyone with the link may join') }),
        t('Guests type it before they can join. Leave empty for none.')),
      chk('uploadsOpen', t('Guests may upload')),
      field('uploadsCloseAt', t('Close uploads at'), closeAt, t('Empty: uploads stay open until you end the event.')),
      h('div', { class: 'two' },
        field('moderation', t('Moderation'), choice('moderation')),
        field('captureMode', t('How guests add photos'), choice('captureMode'))),
      field('maxPhotosPerGuest', t('Photos per guest'), number('maxPhotosPerGuest', lim.maxPhotosPerGuest, 0), t('0 means no limit. Videos count too.')),
      chk('askGuestName', t('Ask guests for their name')),
      chk('allowVideos', t('Accept videos')),
      chk('albumShared', t('Guests see everyone\'s photos'), t('Otherwise each guest sees only their own.')),
      field('revealAt', t('Reveal the album at'), revealAt, t('Empty: at once. Until then each guest sees only their own photos, and the wall waits.')),
      chk('collectGuestEmails', t('Ask guests for an email address'), t('To send them the gallery after the event.')),
      field('frame', t('Frame on photos'), choice('frame')),
      h('div', { class: 'field', dataset: { field: 'captureFilters' } }, h('label', null, t('Camera filters offered to guests')), h('div', { class: 'two' }, filterBoxes), h('div', { class: 'err' })),
      h('div', { class: 'field', dataset: { field: 'challenges' } }, h('label', null, t('Photo challenges'), h('div', { class: 'hint' }, t('Prompts guests can pick, e.g. "the best dance move".'))), challenges, h('div', { class: 'err' }))),
    section(t('Guestbook'), isNew,
      chk('guestbookEnabled', t('Guests may leave a message')),
      chk('guestbookVoice', t('Guests may record a voice message')),
      chk('guestbookInGallery', t('Show the guestbook in gallery links'))),
    section(t('After the event'), isNew,
      chk('notifyAdminSummary', t('Email me a summary when the event ends')),
      chk('emailGuestsGallery', t('Email the gallery link to guests who left an address')),
      chk('galleryMailIncludesPassword', t('Put the gallery password in that email')),
      field('galleryLinkDays', t('Gallery link valid for (days)'), number('galleryLinkDays', lim.galleryLinkDays, null), t('0: no gallery link is made when the event ends.')),
      chk('galleryLinkDownload', t('The gallery link offers a download of all photos')),
      chk('galleryLinkFavorites', t('The gallery link shows favorites only'))),
    section(t('Live wall and QR code'), isNew,
      h('div', { class: 'field', dataset: { field: 'wallStyle' } },
        h('div', { class: 'two' },
          h('div', { class: 'field' }, h('label', { for: (wall.interval.id = 'wall-interval') }, t('Seconds per slide')), wall.interval),
          h('div', { class: 'field' }, h('label', { for: (wall.layout.id = 'wall-layout') }, t('Wall layout')), wall.layout)),
        wall.showNames, wall.showQr, h('div', { class: 'err' })),
      h('div', { class: 'field', dataset: { field: 'qrStyle' } },
        h('div', { class: 'two' },
          h('div', { class: 'field' }, h('label', null, t('QR colour')), qr.fg),
          h('div', { class: 'field' }, h('label', null, t('QR background')), qr.bg)),
        h('div', { class: 'field' }, h('label', { for: (qr.dots.id = 'qr-dots') }, t('QR dots')), qr.dots),
        qr.logo, h('div', { class: 'err' }))),
    h('div', { class: 'actionbar' }, h('div', { class: 'row end' },
      h('button', { class: 'primary', type: 'submit' }, isNew ? t('Create the event') : t('Save changes')))));

  const values = () => Object.fromEntries(Object.entries(read).map(([k, r]) => [k, r()]));
  const changed = () => {
    const all = values();
    const out = {};
    for (const [k, v] of Object.entries(all)) {
      const was = k === 'challenges' ? (ev.challenges || []).map((c) => ({ id: c.id, label: c.label })) : ev[k];
      const now = k === 'challenges' ? v.map((c) => (typeof c === 'string' ? { label: c } : c)) : v;
      // The time field shows minutes: a stored time within the same minute is unchanged.
      if ((k === 'uploadsCloseAt' || k === 'revealAt') && was && now && Math.floor(was / 60000) === Math.floor(now / 60000)) continue;
      if (JSON.stringify(now) !== JSON.stringify(was ?? null)) out[k] = v;
    }
    return out;
  };
  return { el, values, changed };
}

/** newEventPage is /admin/events/new (owners): the form starts from the model's defaults. */
export async function newEventPage(ctx, view) {
  const model = await eventModel();
  const form = eventForm(structuredClone(model.defaults), true, model);
  view(t('New event'), form.el);
  form.el.querySelector('[name=name]').focus();
  form.el.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form.el, null);
    const res = await busy(form.el.querySelector('[type=submit]'),
      call('/api/admin/events', { method: 'POST', body: form.values() }), (err) => showErrors(form.el, err));
    if (res) {
      toast(t('Event created'));
      ctx.go('/admin/events/' + res.event.id + '/share', true);
    }
  });
}

/**
 * live is the console's one stream of the event it shows (live.js): kept
 * while the host moves between the event's tabs, closed when they leave
 * the event. pending is the last count of photos waiting for review.
 */
let live = null;

function eventLive(id) {
  if (live && live.id === id) return live;
  const base = '/admin/events/' + id + '/';
  const stream = openLive(`/api/admin/events/${encodeURIComponent(id)}/live`, () => location.pathname.startsWith(base));
  const l = { id, stream, pending: null };
  stream.on('counts', (c) => {
    l.pending = c.pending;
    for (const el of document.querySelectorAll('#tab-photos-count')) drawPending(el, c.pending);
  });
  // A closed stream is forgotten, so that coming back opens a new one.
  const close = stream.close;
  stream.close = () => { close(); if (live === l) live = null; };
  stream.on('gone', () => {});
  live = l;
  return l;
}

function drawPending(el, n) {
  el.hidden = !n;
  el.textContent = n ? String(n) : '';
  el.title = n ? t('{n} waiting for review', { n }) : '';
}

const TABS = [['settings', t('Settings')], ['photos', t('Photos')], ['guestbook', t('Guestbook')], ['places', t('Places')], ['share', t('Share')], ['finish', t('Downloads & end')]];

/** eventPage is /admin/events/<id>/<tab>. */
export async function eventPage(ctx, view, id, tab) {
  let { event: ev } = await call('/api/admin/events/' + encodeURIComponent(id));
  const body = h('div', { id: 'tab' });
  const base = '/admin/events/' + ev.id;
  const header = () => [
    h('div', { class: 'small muted' }, h('a', { href: '/admin' }, t('← Events'))),
    h('h1', null, ev.name),
    h('div', { class: 'row small muted' },
      ev.eventDate ? fmtDate(ev.eventDate) : null,
      ev.endedAt ? h('span', { class: 'pill' }, t('Ended ') + fmtTime(ev.endedAt)) : ev.uploadsOpen ? h('span', { class: 'pill good' }, t('Uploads open')) : h('span', { class: 'pill warn' }, t('Uploads closed')),
      h('a', { href: '/e/' + ev.slug, target: '_blank', rel: 'noopener' }, '/e/' + ev.slug)),
    h('nav', { class: 'tabs', 'aria-label': t('Event') },
      TABS.map(([k, l]) => h('a', { href: `${base}/${k}`, id: `tab-${k}`, 'aria-current': k === tab ? 'page' : null }, l,
        k === 'photos' ? pendingBadge() : null))),
  ];
  const pendingBadge = () => {
    const el = h('span', { class: 'count-badge', id: 'tab-photos-count' });
    drawPending(el, lv.pending);
    return el;
  };
  const lv = eventLive(ev.id);
  document.title = ev.name + ' · eventbox';
  const root = view('', h('div', { id: 'event-head' }, header()), body);
  const setEvent = (next) => {
    ev = next;
    // The host may have left this page while a save was on its way.
    const head = root.querySelector('#event-head');
    if (head) clear(head, header());
  };
  // on(name, fn) listens to the event's stream while this tab is shown.
  const on = (name, fn) => {
    const off = lv.stream.on(name, (d) => { if (body.isConnected) fn(d); else off(); });
    return off;
  };
  const env = { ctx, ev: () => ev, setEvent, base, on };
  switch (tab) {
    case 'settings': return settingsTab(env, body);
    case 'photos': return (await import('./admin-moderation.js')).photosTab(env, body);
    case 'guestbook': return (await import('./admin-moderation.js')).guestbookTab(env, body);
    case 'places': return placesTab(env, body);
    case 'share': return shareTab(env, body);
    case 'finish': return finishTab(env, body);
    default: return ctx.go(base + '/settings', true);
  }
}

async function settingsTab(env, body) {
  const model = await eventModel();
  const ev = env.ev();
  // Keep the sections the host had open across a redraw after saving.
  const wasOpen = [...body.querySelectorAll('details.section')].map((d) => d.open);
  const form = eventForm(ev, false, model);
  form.el.querySelectorAll('details.section').forEach((d, i) => { if (wasOpen[i]) d.open = true; });
  form.el.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form.el, null);
    const patch = form.changed();
    if (!Object.keys(patch).length) return toast(t('Nothing changed'));
    const res = await busy(form.el.querySelector('[type=submit]'),
      call('/api/admin/events/' + ev.id, { method: 'PATCH', body: patch }), (err) => showErrors(form.el, err));
    if (res) {
      env.setEvent(res.event);
      toast(t('Saved'));
      if (body.isConnected) settingsTab(env, body);
    }
  });
  // The phones on the box's Wi-Fi over the evening, while the event runs.
  clear(body, ev.endedAt ? null : phonesEvening('event-phones'), logoCard(env, () => settingsTab(env, body)), form.el, dangerCard(env));
}

function logoCard(env, redraw) {
  const ev = env.ev();
  const file = h('input', { type: 'file', accept: 'image/png,image/jpeg,image/webp', hidden: true });
  const card = h('div', { class: 'card row' },
    ev.logoVersion ? h('img', { src: `/api/e/${encodeURIComponent(ev.slug)}/logo?v=${ev.logoVersion}`, alt: t('Logo'), style: 'max-height:56px;max-width:140px' })
      : h('span', { class: 'muted', style: 'flex:1 1 14em' }, t('No logo. A logo appears on the guest pages and in the QR code.')),
    ev.logoVersion ? h('span', { class: 'grow' }) : null,
    file,
    h('button', { type: 'button', class: 'small', onclick: () => file.click() }, ev.logoVersion ? t('Replace logo') : t('Add a logo')),
    ev.logoVersion ? h('button', {
      type: 'button', class: 'small danger', onclick: async (e) => {
        const res = await busy(e.currentTarget, call(`/api/admin/events/${ev.id}/logo`, { method: 'DELETE' }));
        if (res) { env.setEvent(res.event); redraw(); }
      },
    }, t('Remove')) : null);
  file.addEventListener('change', async () => {
    if (!file.files[0]) return;
    const fd = new FormData();
    fd.append('logo', file.files[0]);
    const res = await busy(null, call(`/api/admin/events/${ev.id}/logo`, { method: 'POST', body: fd }));
    if (res) { env.setEvent(res.event); toast(t('Logo saved')); redraw(); }
  });
  return card;
}

function dangerCard(env) {
  const ev = env.ev();
  const owner = env.ctx.me.role === 'owner';
  return h('div', { class: 'card' },
    h('h2', { style: 'margin-top:0' }, t('Link and copies')),
    h('div', { class: 'row' },
      h('button', {
        type: 'button', onclick: async (e) => {
          if (!confirmDo(t('Make a new guest link? The old link and printed QR codes stop working.'))) return;
          const res = await busy(e.currentTarget, call(`/api/admin/events/${ev.id}/rotate`, { method: 'POST' }));
          if (res) { env.setEvent(res.event); toast(t('New link: {path}', { path: '/e/' + res.event.slug })); }
        },
      }, t('New guest link')),
      owner ? h('button', {
        type: 'button', onclick: async (e) => {
          const name = prompt('Name of the copy', ev.name + ' (copy)');
          if (name === null) return;
          const res = await busy(e.currentTarget, call(`/api/admin/events/${ev.id}/duplicate`, { method: 'POST', body: { name: name.trim() || undefined } }));
          if (res) { toast(t('Copy created')); env.ctx.go('/admin/events/' + res.event.id); }
        },
      }, t('Duplicate settings')) : null,
      owner ? h('button', {
        type: 'button', class: 'danger', onclick: async (e) => {
          if (!confirmDo(t('Delete "{name}" with all its photos and messages? This cannot be undone.', { name: ev.name }))) return;
          const res = await busy(e.currentTarget, call('/api/admin/events/' + ev.id, { method: 'DELETE' }));
          if (res) { toast(t('Event deleted')); env.ctx.go('/admin', true); }
        },
      }, t('Delete event')) : null));
}

async function placesTab(env, body) {
  const ev = env.ev();
  clear(body, h('p', { class: 'muted' }, t('Loading…')));
  let spots;
  try {
    ({ spots } = await call(`/api/admin/events/${ev.id}/spots`));
  } catch (e) {
    return clear(body, notYet(e) ? unavailable(t('Places')) : h('div', { class: 'banner bad' }, errText(e)));
  }
  const label = h('input', { type: 'text', maxlength: 40, placeholder: t('e.g. Table 4, Photo corner') });
  const add = h('form', { class: 'card row', novalidate: true },
    h('div', { class: 'grow' }, field('label', t('New place'), label, t('Each place gets its own QR code; photos taken from it are tagged.'))),
    h('button', { class: 'primary', type: 'submit' }, t('Add')));
  add.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(add, null);
    const res = await busy(add.querySelector('[type=submit]'),
      call(`/api/admin/events/${ev.id}/spots`, { method: 'POST', body: { label: label.value.trim() } }), (err) => showErrors(add, err));
    if (res) placesTab(env, body);
  });
  const qr = (s, fmt) => `/api/admin/events/${ev.id}/qr?format=${fmt}&size=1024&download=1&spot=${encodeURIComponent(s.id)}`;
  clear(body, add, h('ul', { class: 'list' }, spots.length ? spots.map((s) => h('li', null,
    h('div', { class: 'spread' },
      h('strong', null, s.label),
      h('span', { class: 'small muted' }, `${s.photos} photo${s.photos === 1 ? '' : 's'}`)),
    h('div', { class: 'row small', style: 'margin-top:6px' },
      h('a', { class: 'btn small', href: qr(s, 'png'), download: '' }, t('QR (PNG)')),
      h('a', { class: 'btn small', href: qr(s, 'svg'), download: '' }, t('QR (SVG)')),
      h('button', { class: 'small', onclick: () => copyText(absURL(`/e/${ev.slug}?at=${encodeURIComponent(s.id)}`)) }, t('Copy link')),
      h('button', {
        class: 'small', onclick: async (e) => {
          const next = prompt(t('New name of the place'), s.label);
          if (next === null) return;
          const res = await busy(e.currentTarget, call(`/api/admin/events/${ev.id}/spots/${s.id}`, { method: 'PATCH', body: { label: next.trim() } }));
          if (res) placesTab(env, body);
        },
      }, t('Rename')),
      h('button', {
        class: 'small danger', onclick: async (e) => {
          if (!confirmDo(t('Delete the place "{name}"? Its photos stay, untagged.', { name: s.label }))) return;
          const res = await busy(e.currentTarget, call(`/api/admin/events/${ev.id}/spots/${s.id}`, { method: 'DELETE' }));
          if (res) placesTab(env, body);
        },
      }, t('Delete'))))) : h('li', { class: 'muted' }, t('No place yet.'))));
}

function shareTab(env, body) {
  const ev = env.ev();
  const guestURL = absURL('/e/' + ev.slug);
  const size = select('qrSize', [['1024', '1024 px'], ['2048', '2048 px'], ['4096', '4096 px'], ['512', '512 px']], '1024');
  const qrHref = (fmt) => `/api/admin/events/${ev.id}/qr?format=${fmt}&size=${size.value}&download=1`;
  const png = h('a', { class: 'btn small', href: qrHref('png'), download: '' }, t('Download PNG'));
  const svg = h('a', { class: 'btn small', href: qrHref('svg'), download: '' }, t('Download SVG'));
  size.addEventListener('change', () => { png.href = qrHref('png'); svg.href = qrHref('svg'); });
  const preview = h('img', { alt: t('QR code of the guest link'), width: 180, height: 180, style: 'background:#fff;border-radius:8px', src: `/api/admin/events/${ev.id}/qr?format=svg&size=512` });
  preview.addEventListener('error', () => preview.replaceWith(h('div', { class: 'muted small' }, t('The QR code is not available on this box yet.'))));
  const shares = h('div', null, h('p', { class: 'muted' }, t('Loading…')));
  const booth = h('div');
  const walls = h('div', null, h('p', { class: 'muted' }, t('Loading…')));
  clear(body,
    h('div', { class: 'card' },
      h('h2', { style: 'margin-top:0' }, t('Guest link')),
      h('p', null, h('code', { id: 'guest-url' }, guestURL)),
      h('div', { class: 'row' },
        h('button', { class: 'small', onclick: () => copyText(guestURL) }, t('Copy')),
        h('a', { class: 'btn small', href: guestURL, target: '_blank', rel: 'noopener' }, t('Open as a guest'))),
      ev.accessCode ? h('p', { class: 'small' }, t('Access code: '), h('strong', null, ev.accessCode)) : null,
      h('div', { class: 'row', style: 'margin-top:10px;align-items:flex-end' }, preview,
        h('div', { class: 'stack' }, h('label', null, t('Size'), size), h('div', { class: 'row' }, png, svg)))),
    signageCard(ev),
    h('div', { class: 'card', id: 'walls' }, h('h2', { style: 'margin-top:0' }, t('Live wall')),
      h('p', { class: 'muted small' }, t('A link for the screen at the venue: it shows the visible photos and approved guestbook texts as they come, with no sign-in. Revoke it when the party is over.')), walls),
    h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, t('Gallery links')),
      h('p', { class: 'muted small' }, t('Read-only links to the visible photos, for after the party.')), shares),
    h('div', { class: 'card', id: 'booth' }, h('h2', { style: 'margin-top:0' }, t('Photo booth')), booth));
  drawShares(env, shares);
  drawWalls(env, walls);
  drawBooth(env, booth);
}

/** signageCard offers the printable signs (GET …/signage) as downloads. */
function signageCard(ev) {
  const wifiOn = check('signWifi', t('Step 1: join the Wi-Fi'), true, t('Leave the name empty to use the box\'s own hotspot, when it runs one.'));
  const ssid = h('input', { type: 'text', id: 'sign-ssid', maxlength: 32, autocapitalize: 'none', spellcheck: 'false', placeholder: t('The box\'s hotspot') });
  const pass = h('input', { type: 'text', id: 'sign-pass', maxlength: 64, autocapitalize: 'none', spellcheck: 'false' });
  const href = (kind, size) => {
    const q = new URLSearchParams({ kind });
    if (size) q.set('size', size);
    if (!wifiOn.querySelector('input').checked) q.set('wifi', '0');
    else if (ssid.value.trim()) { q.set('ssid', ssid.value.trim()); q.set('wifiPassword', pass.value); }
    q.set('lang', lang.value);
    return `/api/admin/events/${ev.id}/signage?${q}`;
  };
  // The signs speak the language the host reads them in, the console's,
  // whatever the guests' pages speak; the host may pick another, or any
  // two for a mixed party, in either order ("Français + Italiano": the
  // route's lang=fr,it), the console's language first in each list.
  const first = LANGS[consoleLang()] ? consoleLang() : Object.keys(LANGS)[0];
  const order = [first, ...Object.keys(LANGS).filter((l) => l !== first)];
  const pairs = order.flatMap((a) => order.filter((b) => b !== a).map((b) => h('option', { value: a + ',' + b }, LANGS[a] + ' + ' + LANGS[b])));
  const lang = h('select', { name: 'signLang', id: 'sign-lang' },
    h('optgroup', { label: t('One language') }, order.map((l) => h('option', { value: l, selected: l === first }, LANGS[l]))),
    h('optgroup', { label: t('Two languages') }, pairs));
  lang.style.cssText = 'width:auto;max-width:100%';
  const links = [['table', 'a6', t('Table cards A6 (4 per A4)')], ['table', 'a5', t('Table cards A5 (2 per A4)')],
    ['poster', 'a4', t('Poster A4')], ['poster', 'a3', t('Poster A3')], ['place', '', t('One card per place')]]
    .map(([k, s, label]) => h('a', { class: 'btn small', href: href(k, s), download: '', dataset: { kind: k, size: s } }, label));
  const refresh = () => links.forEach((a) => { a.href = href(a.dataset.kind, a.dataset.size); });
  // The same signs on the box's printer (A4; an A3 poster is fitted).
  const which = select('signPrint', links.map((a) => [a.dataset.kind + ':' + a.dataset.size, a.textContent]), 'poster:a4');
  which.setAttribute('aria-label', t('Which signs'));
  which.style.cssText = 'width:auto;max-width:100%';
  // One card per place needs places: until the event's are known it is
  // a disabled button, and with none it stays one, saying where to add
  // them, so no download of the route's refusal is offered.
  const place = links[links.length - 1];
  const placeOption = which.querySelector('option[value="place:"]');
  const placeNote = h('p', { class: 'small', hidden: true },
    h('a', { id: 'sign-place-note', href: `/admin/events/${ev.id}/places` }, t('Add places first (the Places tab) for one card per place.')));
  const placeOff = h('button', { type: 'button', class: 'small', id: 'sign-place-off', disabled: true, 'aria-describedby': 'sign-place-note' }, place.textContent);
  placeOption.disabled = true;
  const row = h('div', { class: 'row', style: 'margin-top:8px', 'aria-busy': 'true' }, links.map((a) => (a === place ? placeOff : a)));
  call(`/api/admin/events/${ev.id}/spots`).then(({ spots }) => spots.length, () => 1).then((n) => {
    row.removeAttribute('aria-busy');
    if (!n) { placeNote.hidden = false; return; }
    placeOff.replaceWith(place);
    placeOption.disabled = false;
  });
  const printSigns = h('button', {
    type: 'button', class: 'small', id: 'print-signs', onclick: (e) => {
      const [k, s] = which.value.split(':');
      import('./admin-printing.js').then((m) => m.printSigns(ev, href(k, s).split('?')[1], e.currentTarget));
    },
  }, t('Print on the box\'s printer'));
  [ssid, pass, wifiOn].forEach((x) => x.addEventListener('input', refresh));
  wifiOn.addEventListener('change', refresh);
  lang.addEventListener('change', refresh);
  return h('div', { class: 'card', id: 'signage' }, h('h2', { style: 'margin-top:0' }, t('Printed signs')),
    h('p', { class: 'muted small' }, t('Ready-to-print PDFs in the event\'s colours: how to join the Wi-Fi, the code to scan and the access code. Cut along the marks.')),
    wifiOn,
    h('div', { class: 'two' }, h('div', { class: 'field' }, h('label', { for: 'sign-ssid' }, t('Wi-Fi name')), ssid),
      h('div', { class: 'field' }, h('label', { for: 'sign-pass' }, t('Wi-Fi password')), pass)),
    h('div', { class: 'row', style: 'align-items:center' }, h('label', { for: 'sign-lang' }, t('Language of the signs')), lang),
    row,
    placeNote,
    h('div', { class: 'row', style: 'margin-top:8px' }, which, printSigns));
}

async function drawWalls(env, box) {
  const ev = env.ev();
  let list;
  try {
    ({ walls: list } = await call(`/api/admin/events/${ev.id}/walls`));
  } catch (e) {
    return clear(box, h('div', { class: 'banner bad' }, errText(e)));
  }
  const label = h('input', { type: 'text', id: 'wall-label', maxlength: 80, placeholder: t('e.g. Screen in the hall') });
  const make = async (e) => {
    const res = await busy(e.currentTarget, call(`/api/admin/events/${ev.id}/walls`, { method: 'POST', body: { label: label.value.trim() || undefined } }));
    if (res) drawWalls(env, box);
  };
  clear(box,
    h('ul', { class: 'list' }, list.length ? list.map((w) => h('li', { dataset: { wall: w.id } },
      h('strong', null, w.label || t('Wall screen')),
      h('div', { class: 'small' }, h('code', null, w.url)),
      h('div', { class: 'small muted' }, t('Made ') + fmtTime(w.createdAt)),
      h('div', { class: 'row', style: 'margin-top:6px' },
        h('a', { class: 'btn small primary', href: w.url, target: '_blank', rel: 'noopener' }, t('Open the wall')),
        h('button', { class: 'small', onclick: () => copyText(w.url) }, t('Copy')),
        h('button', {
          class: 'small danger', onclick: async (e) => {
            if (!confirmDo(t('Revoke this wall link? The screen showing it goes blank.'))) return;
            const res = await busy(e.currentTarget, call(`/api/admin/events/${ev.id}/walls/${w.id}`, { method: 'DELETE' }));
            if (res) drawWalls(env, box);
          },
        }, t('Revoke'))))) : h('li', { class: 'muted' }, t('No wall link yet.'))),
    h('div', { class: 'row', style: 'align-items:flex-end' },
      h('div', { class: 'field grow', style: 'margin:0' }, h('label', { for: 'wall-label' }, t('Label (optional)')), label),
      h('button', { class: list.length ? '' : 'primary', id: 'make-wall', onclick: make }, t('Make a wall link'))));
}

async function drawShares(env, box) {
  const ev = env.ev();
  let list;
  try {
    ({ shares: list } = await call(`/api/admin/events/${ev.id}/shares`));
  } catch (e) {
    return clear(box, notYet(e) ? unavailable(t('Gallery links')) : h('div', { class: 'banner bad' }, errText(e)));
  }
  const label = h('input', { type: 'text', maxlength: 80, placeholder: t('e.g. For the family') });
  const pwMode = select('pwMode', [['none', t('No password')], ['gen', t('Make a password for me')], ['own', t('Choose a password')]], 'none');
  const pw = h('input', { type: 'text', autocapitalize: 'none', hidden: true, placeholder: t('Password'), 'aria-label': t('Password') });
  pwMode.addEventListener('change', () => { pw.hidden = pwMode.value !== 'own'; });
  const days = h('input', { type: 'number', min: 1, max: 3650, placeholder: t('Never'), inputmode: 'numeric' });
  const dl = check('allowDownload', t('Offer a download of all photos'), ev.galleryLinkDownload);
  const fav = check('favoritesOnly', t('Favorites only'), false);
  const form = h('form', { class: 'stack', novalidate: true },
    h('div', { class: 'two' }, field('label', t('Label'), label), field('expiresInDays', t('Expires after (days)'), days)),
    h('div', { class: 'field', dataset: { field: 'password' } }, h('label', { for: (pwMode.id = 'share-pw-mode') }, t('Password')), pwMode, pw, h('div', { class: 'err' })),
    dl, fav, h('button', { class: 'primary', type: 'submit' }, t('Create a gallery link')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const req = { label: label.value.trim() || undefined, allowDownload: dl.querySelector('input').checked, favoritesOnly: fav.querySelector('input').checked };
    if (days.value) req.expiresInDays = Number(days.value);
    if (pwMode.value === 'gen') req.password = true;
    if (pwMode.value === 'own') req.password = pw.value;
    const res = await busy(form.querySelector('[type=submit]'), call(`/api/admin/events/${ev.id}/shares`, { method: 'POST', body: req }), (err) => showErrors(form, err));
    if (!res) return;
    await drawShares(env, box);
  });
  clear(box,
    h('ul', { class: 'list', id: 'gallery-links' }, list.length ? list.map((s) => h('li', null,
      h('div', { class: 'spread' }, h('strong', null, s.label === 'Made when the event ended' ? t('Made when the event ended') : s.label || t('Gallery link')),
        h('span', { class: 'row small' },
          s.expired ? h('span', { class: 'pill bad' }, t('Expired')) : null,
          s.hasPassword ? h('span', { class: 'pill' }, t('Password')) : null,
          s.allowDownload ? h('span', { class: 'pill' }, t('Download')) : null,
          s.favoritesOnly ? h('span', { class: 'pill' }, t('Favorites')) : null)),
      h('div', { class: 'small' }, h('code', null, s.url)),
      // A password the box made is kept, so the hosts can give it again.
      s.password ? h('div', { class: 'row small share-pw' }, h('span', null, t('Password: '), h('strong', { class: 'mono' }, s.password)),
        h('button', { class: 'small', onclick: () => copyText(s.password) }, t('Copy the password'))) : null,
      h('div', { class: 'small muted' }, s.expiresAt ? t('Expires ') + fmtTime(s.expiresAt) : t('Does not expire')),
      h('div', { class: 'row', style: 'margin-top:6px' },
        h('button', { class: 'small', onclick: () => copyText(s.url) }, t('Copy')),
        h('a', { class: 'btn small', href: s.url, target: '_blank', rel: 'noopener' }, t('Open')),
        h('button', {
          class: 'small danger', onclick: async (e) => {
            if (!confirmDo(t('Revoke this link? Anyone using it loses access.'))) return;
            const res = await busy(e.currentTarget, call(`/api/admin/events/${ev.id}/shares/${s.id}`, { method: 'DELETE' }));
            if (res) drawShares(env, box);
          },
        }, t('Revoke'))))) : h('li', { class: 'muted' }, t('No gallery link yet.'))),
    h('details', { class: 'section' }, h('summary', null, t('New gallery link')), h('div', null, form)));
}

function drawBooth(env, box) {
  const ev = env.ev();
  const turnOn = async (e) => {
    if (ev.boothEnabled && !confirmDo(t('Make a new booth link? The device using the old one stops working.'))) return;
    const res = await busy(e.currentTarget, call(`/api/admin/events/${ev.id}/booth`, { method: 'POST', body: {} }));
    if (!res) return;
    env.setEvent(res.event);
    drawBooth(env, box);
    const url = res.url || absURL(`/e/${ev.slug}?booth=${encodeURIComponent(res.boothKey)}`);
    box.append(h('div', { class: 'banner good' },
      h('p', null, t('Scan this code with the booth device (a tablet or a laptop with a camera), or open the link on it. They are shown only now:')),
      res.qr ? h('img', { class: 'booth-qr', src: res.qr, width: 220, height: 220, alt: t('QR code of the booth link') }) : null,
      h('p', null, h('code', null, url)),
      h('div', { class: 'row' }, h('button', { class: 'small', onclick: () => copyText(url) }, t('Copy')),
        h('a', { class: 'btn small', href: url, target: '_blank', rel: 'noopener' }, t('Open here')))));
  };
  clear(box,
    h('p', { class: 'muted small' }, t('A booth device shows the camera full screen and takes a photo on a touch, a key or the box\'s button, after a countdown.')),
    h('p', null, ev.boothEnabled ? h('span', { class: 'pill good' }, t('Booth on')) : h('span', { class: 'pill' }, t('Booth off'))),
    h('div', { class: 'row' },
      h('button', { class: ev.boothEnabled ? '' : 'primary', onclick: turnOn }, ev.boothEnabled ? t('New booth link') : t('Turn the booth on')),
      ev.boothEnabled ? h('button', {
        class: 'danger', onclick: async (e) => {
          const res = await busy(e.currentTarget, call(`/api/admin/events/${ev.id}/booth`, { method: 'DELETE' }));
          if (res) { env.setEvent({ ...ev, boothEnabled: false }); drawBooth(env, box); }
        },
      }, t('Turn it off')) : null));
}

function finishTab(env, body) {
  const ev = env.ev();
  const a = (href, label) => h('a', { class: 'btn small', href, download: '' }, label);
  const layout = select('layout', [1, 2, 4].map((n) => [String(n), t('{n, plural, one {# photo a page} other {# photos a page}}', { n })]), '2');
  const scope = select('scope', [['visible', t('Every visible photo')], ['favorites', t('Favorites only')]], 'visible');
  layout.setAttribute('aria-label', t('Album layout'));
  scope.setAttribute('aria-label', t('Which photos'));
  const order = select('order', [['taken', t('In the order taken')], ['loved', t('Most loved first')]], 'taken');
  order.setAttribute('aria-label', t('Album order'));
  const album = a('', t('Make the album (PDF)'));
  const setAlbum = () => { album.href = `/api/admin/events/${ev.id}/album?layout=${layout.value}&scope=${scope.value}&order=${order.value}`; };
  layout.addEventListener('change', setAlbum);
  scope.addEventListener('change', setAlbum);
  order.addEventListener('change', setAlbum);
  setAlbum();
  const cloud = h('div', null, h('p', { class: 'muted' }, t('Loading…')));
  const prints = h('div', null, h('p', { class: 'muted' }, t('Loading…')));
  const end = h('div');
  const contacts = h('div', { class: 'card' }, h('p', { class: 'muted' }, t('Loading…')));
  clear(body,
    h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, t('Downloads')),
      h('div', { class: 'row' },
        a(`/api/admin/events/${ev.id}/archive`, t('Visible photos (ZIP)')),
        a(`/api/admin/events/${ev.id}/archive?favorites=1`, t('Favorites (ZIP)')),
        a(`/api/admin/events/${ev.id}/archive?all=1`, t('Everything, hidden too (ZIP)')),
        a(`/api/admin/events/${ev.id}/messages/archive`, t('Guestbook (ZIP)'))),
      h('h3', null, t('Printable album')),
      h('div', { class: 'row' }, layout, scope, order, album),
      h('p', { class: 'small muted' }, t('Large albums take a while; the box makes one album at a time.'))),
    h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, t('Cloud export')), cloud),
    h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, t('End the event')), end),
    h('div', { class: 'card', id: 'event-printing' }, h('h2', { style: 'margin-top:0' }, t('Printing')), prints),
    contacts);
  drawCloud(env, cloud);
  import('./admin-printing.js').then((m) => m.eventPrintPanel(ev, prints));
  drawEnd(env, end, contacts);
  contactsCard(ev, contacts, env.ctx.me.role === 'owner');
}

async function drawCloud(env, box) {
  (await import('./admin-cloud.js')).exportPanel(env.ev(), env.ctx.me, box);
}

// guestLinkPlan says which gallery link the guests' mails will carry, and
// warns, before the end, when the box's own link would only open on its
// Wi-Fi: the mails then wait for a cloud copy (GET …/guest-link).
async function guestLinkPlan(env, ev, box) {
  let p;
  try {
    p = await call(`/api/admin/events/${ev.id}/guest-link`);
  } catch {
    return;
  }
  if (!p) return;
  const owner = env.ctx.me.role === 'owner';
  const setup = owner ? h('a', { href: '/admin/settings/cloud' }, t('Set up the cloud export')) : null;
  switch (p.link) {
    case 'box':
      return clear(box, h('div', { class: 'banner good' }, t('Guests get a gallery link that opens from anywhere: {url}', { url: p.boxUrl })));
    case 'cloud':
    case 'pasted':
    case 'public':
    case 'presigned':
      return clear(box, h('div', { class: 'banner good' },
        {
          cloud: () => t('Guests get a link to the photos on your cloud once the export is done, with the password in the mail.'),
          pasted: () => t('Guests get the link you pasted in the cloud settings once the export is done.'),
          public: () => t('Guests get a link to the event’s page under your bucket’s public address once the export is done.'),
          presigned: () => t('Guests get a link the box signs to the photos in your bucket once the export is done; it works for 7 days.'),
        }[p.link](),
        p.autoExport ? null : h('p', { style: 'margin:6px 0 0' }, t('Export the event to the cloud after the end: the guests’ mails wait for it.'))));
    default:
      return clear(box, h('div', { class: 'banner bad', role: 'alert' },
        h('p', { style: 'margin:0' }, t('The box’s own link ({url}) only opens on the box’s Wi-Fi, not from a guest’s home. Set up the cloud export so guests can open the photos from home; until then their mails wait (up to 48 hours).', { url: p.boxUrl })),
        setup ? h('p', { style: 'margin:6px 0 0' }, setup) : null));
  }
}

function drawEnd(env, box, contacts) {
  const ev = env.ev();
  if (ev.endedAt) {
    return clear(box, h('p', null, t('This event ended on {time}. Uploads are closed.', { time: fmtTime(ev.endedAt) })));
  }
  const will = [
    t('Uploads close.'),
    ev.galleryLinkDays > 0 ? t(ev.galleryLinkFavorites ? 'A gallery link of the favourites, valid for {n, plural, one {# day} other {# days}}, is made.' : 'A gallery link valid for {n, plural, one {# day} other {# days}} is made.', { n: ev.galleryLinkDays }) : null,
    ev.galleryLinkDays > 0 && ev.accessCode ? t('The link gets a password, as the event has an access code.') : null,
    ev.emailGuestsGallery ? t('Guests who left an email get the gallery link when the box is online.') : null,
    ev.notifyAdminSummary ? t('You get a summary by email.') : null,
  ].filter(Boolean);
  const link = h('div', { class: 'guest-link', 'aria-live': 'polite' });
  if (ev.emailGuestsGallery) guestLinkPlan(env, ev, link);
  clear(box,
    h('ul', null, will.map((w) => h('li', null, w))),
    link,
    h('button', {
      class: 'danger', onclick: async (e) => {
        if (!confirmDo(t('End the event now? Guests can no longer upload.'))) return;
        const res = await busy(e.currentTarget, call(`/api/admin/events/${ev.id}/end`, { method: 'POST' }));
        if (!res) return;
        env.setEvent(res.event);
        drawEnd(env, box, contacts);
        const r = res.result || {};
        box.append(endResult(r));
        if (r.exportQueued) {
          const slot = h('div', { class: 'end-export' });
          box.append(slot);
          import('./admin-cloud.js').then((m) => slot.append(m.exportProgress(ev.id)));
        }
        if (contacts) contactsCard(res.event, contacts, env.ctx.me.role === 'owner');
      },
    }, t('End the event')));
}
