// @ts-check
// Moderation in the console: the photo grid (filters, selections, actions,
// infinite scroll, import) and the guestbook.
import { h, clear, toast, fmtTime, infinite, mediaURL, voiceNote, guestLabel } from './lib.js';
import { call, errText, select, busy, notYet, unavailable, confirmDo } from './admin-ui.js';
import { openLightbox } from './lightbox.js';
import { t, mediaCount } from './admin-i18n.js';

// What each action does to a photo, to update the grid without a reload.
const EFFECT = {
  approve: (p) => { p.status = 'visible'; },
  hide: (p) => { p.status = 'hidden'; },
  favorite: (p) => { p.favorite = true; },
  unfavorite: (p) => { p.favorite = false; },
};

// The console's words for a photo's state, never the raw status value.
const STATE = { pending: t('Waiting for review'), visible: t('Visible'), hidden: t('Hidden') };

// KEYS are the photo grid's keyboard shortcuts, shown on screen.
const KEYS = () => [['A', t('approve')], ['H', t('hide')], ['F', t('favourite')], [t('Space'), t('select')], [t('Enter'), t('view large')], ['← → ↑ ↓', t('move')], [t('Delete'), t('delete')]];

/** photosTab is the moderation grid of one event. */
export function photosTab(env, body) {
  const ev = env.ev();
  const params = new URLSearchParams(location.search);
  const status = select('status', [['', t('All photos')], ['pending', t('Waiting for review')], ['visible', t('Visible')], ['hidden', t('Hidden')]], params.get('status') || '');
  status.setAttribute('aria-label', t('Which photos'));
  const favs = h('input', { type: 'checkbox', checked: params.get('favorites') === '1' });
  const loved = lovedBox(params);
  const challenge = ev.challenges.length ? select('challenge', [['', t('Every challenge')], ...ev.challenges.map((c) => [c.id, c.label])], params.get('challenge') || '') : null;
  if (challenge) challenge.setAttribute('aria-label', t('Photo challenges'));
  const grid = h('div', { class: 'grid mod', id: 'photos' });
  const sentinel = h('div', { class: 'sentinel' });
  const note = h('p', { class: 'muted center' });
  const count = h('strong');
  const bar = h('div', { class: 'actionbar', hidden: true }, h('div', { class: 'row' }, count,
    ...['approve', 'hide', 'favorite', 'unfavorite'].map((a) => h('button', { class: 'small', dataset: { action: a }, onclick: (e) => act(a, [...selected], e.currentTarget) },
      { approve: t('Approve'), hide: t('Hide'), favorite: t('★ Favourite'), unfavorite: t('Unfavourite') }[a])),
    h('button', { class: 'small danger', dataset: { action: 'delete' }, onclick: (e) => act('delete', [...selected], e.currentTarget) }, t('Delete')),
    h('button', { class: 'small linkish', onclick: () => { selected.clear(); redrawSel(); } }, t('Clear'))));
  let photos = [];
  const selected = new Set();
  let cursor;
  // gen counts restarts: a page that arrives after a restart belongs to
  // the old filter and is dropped, not mixed into the new list.
  let gen = 0;
  let stop = () => {};
  let closeView = null;

  const matches = (p) => !p.deleted && (!status.value || p.status === status.value) && (!favs.checked || p.favorite) && (!loved.checked || p.hearts > 0) &&
    (!challenge || !challenge.value || p.challengeId === challenge.value);
  const who = (p) => guestLabel(p.guestName, t('Photo booth')) || t('a guest');
  const challengeOf = (p) => (p.challengeId && ev.challenges.find((c) => c.id === p.challengeId)) || null;
  const tileButton = (p, action, label, text) => h('button', {
    type: 'button', class: 'act', dataset: { action }, 'aria-label': t('{action}: photo by {name}', { action: label, name: who(p) }), title: label, tabindex: -1,
    onclick: (e) => act(action, [p.id], e.currentTarget),
  }, text);
  const tile = (p) => {
    const pick = h('button', {
      type: 'button', class: 'pick', 'aria-pressed': selected.has(p.id) ? 'true' : 'false',
      'aria-label': t(p.favorite ? 'Photo by {name}, {state}, favourite' : 'Photo by {name}, {state}', { name: who(p), state: t(STATE[p.status] || p.status) }) + heartsSaid(p),
    },
    h('img', { src: mediaURL(p.id, 'thumb'), alt: '', loading: 'lazy', decoding: 'async' }),
    p.status !== 'visible' ? h('span', { class: 'badge' }, p.status === 'pending' ? t('Review') : t('Hidden')) : null,
    p.favorite ? h('span', { class: 'star' }, t('★')) : null,
    p.video ? h('span', { class: 'play' }, '▶') : null,
    heartCount(p));
    pick.addEventListener('click', () => {
      if (selected.has(p.id)) selected.delete(p.id); else selected.add(p.id);
      redrawSel();
    });
    pick.addEventListener('dblclick', () => view(p));
    const chal = challengeOf(p);
    return h('div', { class: 'tile' + (p.status !== 'visible' ? ' dim' : '') + (selected.has(p.id) ? ' selected' : ''), dataset: { id: p.id } },
      pick,
      // Who took it and for which challenge, in words under the photo.
      h('div', { class: 'cap' }, h('span', { class: 'who', title: guestLabel(p.guestName, t('Photo booth')) || null }, guestLabel(p.guestName, t('Photo booth')) || t('A guest')),
        chal ? h('span', { class: 'chal', title: chal.label }, chal.label) : null),
      h('div', { class: 'acts' },
        p.status !== 'visible' ? tileButton(p, 'approve', t('Approve'), t('✓')) : null,
        p.status !== 'hidden' ? tileButton(p, 'hide', t('Hide'), '⊘') : null,
        p.favorite ? tileButton(p, 'unfavorite', t('Unfavourite'), t('★')) : tileButton(p, 'favorite', t('Favourite'), t('☆')),
        h('button', { type: 'button', class: 'act', 'aria-label': t('{action}: photo by {name}', { action: t('View large'), name: who(p) }), title: t('View large'), tabindex: -1, onclick: () => view(p) }, '⤢')));
  };
  const tileOf = (id) => grid.querySelector(`.tile[data-id="${CSS.escape(id)}"]`);
  // redraw replaces the tile of p in place (keeping focus), removes it when
  // it left the filter, or adds it at its place by time when it joined it.
  const redraw = (p) => {
    const old = tileOf(p.id);
    const had = old && old.contains(document.activeElement);
    const i = photos.findIndex((q) => q.id === p.id);
    if (!matches(p)) {
      if (i >= 0) photos.splice(i, 1);
      selected.delete(p.id);
      if (old) {
        const next = old.nextElementSibling || old.previousElementSibling;
        old.remove();
        if (had && next) next.querySelector('.pick').focus();
      }
      return;
    }
    const t = tile(p);
    if (i >= 0) photos[i] = p;
    if (old) {
      old.replaceWith(t);
    } else {
      // Newest first: before the first older photo; past the loaded
      // pages it comes with a later page.
      const at = photos.findIndex((q) => q.createdAt < p.createdAt);
      if (at < 0 && cursor !== null) return;
      if (at < 0) { photos.push(p); grid.append(t); } else { photos.splice(at, 0, p); tileOf(photos[at + 1].id).before(t); }
      note.textContent = '';
    }
    if (had) t.querySelector('.pick').focus();
  };
  const view = (p) => {
    if (closeView) closeView();
    const actions = (q, close) => [
      h('span', { class: 'pill' + (q.status === 'visible' ? ' good' : ' warn'), id: 'view-state' }, t(STATE[q.status] || q.status)),
      q.status !== 'visible' ? h('button', { class: 'small', dataset: { action: 'approve' }, onclick: (e) => viewAct('approve', q, e, close) }, t('Approve')) : null,
      q.status !== 'hidden' ? h('button', { class: 'small', dataset: { action: 'hide' }, onclick: (e) => viewAct('hide', q, e, close) }, t('Hide')) : null,
      h('button', { class: 'small', dataset: { action: q.favorite ? 'unfavorite' : 'favorite' }, 'aria-pressed': q.favorite ? 'true' : 'false', onclick: (e) => viewAct(q.favorite ? 'unfavorite' : 'favorite', q, e, close) }, q.favorite ? t('★ Favourite') : t('☆ Favourite')),
      h('a', { class: 'btn small', href: mediaURL(q.id, 'original', true), download: '' }, t('Original')),
      q.video ? null : h('button', { class: 'small', dataset: { action: 'print' }, onclick: (e) => import('./admin-printing.js').then((m) => m.printPhoto(ev, q.id, e.currentTarget)) }, t('Print photo')),
    ];
    const list = photos.slice();
    closeView = openLightbox(list, list.indexOf(p), {
      caption: (q) => `${guestLabel(q.guestName, t('Photo booth')) || t('Guest')} · ${fmtTime(q.createdAt)}${q.downloads ? ' · ' + t('{n, plural, one {# download} other {# downloads}}', { n: q.downloads }) : ''}`,
      name: (q) => `${q.video ? t('Video') : t('Photo')} · ${guestLabel(q.guestName, t('Photo booth')) || t('Guest')} · ${fmtTime(q.createdAt)}`,
      actions,
      keys: { a: 'approve', h: 'hide', f: 'favorite' },
      onKey: (action, q, close) => viewAct(action === 'favorite' && q.favorite ? 'unfavorite' : action, q, null, close),
      onClose: () => { closeView = null; },
    });
  };
  const viewAct = async (action, q, e, close) => {
    await act(action, [q.id], e ? e.currentTarget : null);
    if (close && close.redraw) close.redraw();
  };
  const redrawSel = () => {
    for (const t of grid.children) {
      const on = selected.has(t.dataset.id);
      t.classList.toggle('selected', on);
      t.querySelector('.pick').setAttribute('aria-pressed', on ? 'true' : 'false');
    }
    bar.hidden = selected.size === 0;
    count.textContent = t('{n, plural, one {# photo selected} other {# photos selected}}', { n: selected.size });
  };
  const act = async (action, ids, button) => {
    if (!ids.length) return;
    if (action === 'delete' && !confirmDo(t(ids.length === 1 ? 'Delete this photo for good?' : 'Delete {n, plural, one {# photo} other {# photos}} for good?', { n: ids.length }))) return;
    const req = call(`/api/admin/events/${ev.id}/photos`, { method: 'POST', body: { action, ids } });
    const res = button ? await busy(button, req) : await req.catch((err) => { toast(errText(err), 'bad'); return null; });
    if (!res) return;
    for (const id of ids) {
      selected.delete(id);
      const p = photos.find((q) => q.id === id);
      if (!p) continue;
      if (action === 'delete') redraw({ ...p, deleted: true });
      else { EFFECT[action](p); redraw(p); }
    }
    if (ids.length > 1) toast(t('{n, plural, one {# photo changed} other {# photos changed}}', { n: res.changed }));
    redrawSel();
  };
  // Changes pushed by the box: uploads, and moderation from elsewhere.
  env.on('photo.added', (p) => redraw(p));
  env.on('photo.changed', (p) => {
    const known = photos.find((q) => q.id === p.id);
    if (known) Object.assign(known, p);
    redraw(known || p);
    if (closeView) closeView.redraw();
  });
  env.on('photo.removed', ({ id }) => {
    const i = photos.findIndex((q) => q.id === id);
    if (i >= 0) redraw({ ...photos[i], deleted: true });
  });
  env.on('reset', () => restart());
  grid.addEventListener('keydown', (e) => {
    const t = e.target.closest('.tile');
    if (!t || e.altKey || e.ctrlKey || e.metaKey) return;
    const p = photos.find((q) => q.id === t.dataset.id);
    const k = e.key.toLowerCase();
    const moveTo = (el) => { if (el) { e.preventDefault(); el.querySelector('.pick').focus(); } };
    const perRow = Math.max(1, Math.round(grid.clientWidth / t.offsetWidth));
    const tiles = [...grid.children];
    const at = tiles.indexOf(t);
    if (k === 'a') act('approve', [p.id]);
    else if (k === 'h') act('hide', [p.id]);
    else if (k === 'f') act(p.favorite ? 'unfavorite' : 'favorite', [p.id]);
    else if (k === 'enter') { e.preventDefault(); view(p); }
    else if (k === 'delete' || k === 'backspace') act('delete', [p.id]);
    else if (k === 'arrowright') moveTo(tiles[at + 1]);
    else if (k === 'arrowleft') moveTo(tiles[at - 1]);
    else if (k === 'arrowdown') moveTo(tiles[at + perRow]);
    else if (k === 'arrowup') moveTo(tiles[at - perRow]);
  });
  const query = () => {
    const q = new URLSearchParams();
    if (status.value) q.set('status', status.value);
    if (favs.checked) q.set('favorites', '1');
    if (loved.checked) q.set('loved', '1');
    if (challenge && challenge.value) q.set('challenge', challenge.value);
    return q;
  };
  const more = async () => {
    if (cursor === null) return false;
    const q = query();
    if (cursor) q.set('before', cursor);
    const mine = gen;
    try {
      const res = await call(`/api/admin/events/${ev.id}/photos?${q}`);
      if (mine !== gen) return false;
      const fresh = res.photos.filter((p) => !photos.some((q) => q.id === p.id));
      photos.push(...fresh);
      grid.append(...fresh.map(tile));
      cursor = res.nextCursor;
      note.textContent = photos.length ? (cursor === null ? mediaCount(photos.length, photos.filter((p) => p.video).length) : '') : t('No photo here yet.');
      return cursor !== null;
    } catch (e) {
      clear(note, notYet(e) ? unavailable(t('Photo moderation')) : h('span', { class: 'form-err' }, errText(e), ' ', h('button', { class: 'small', onclick: restart }, t('Retry'))));
      return false;
    }
  };
  const restart = () => {
    stop();
    gen++;
    photos = [];
    cursor = undefined;
    selected.clear();
    clear(grid);
    redrawSel();
    const q = query().toString();
    history.replaceState(null, '', location.pathname + (q ? '?' + q : ''));
    stop = infinite(sentinel, more);
  };
  [status, favs, loved, challenge].forEach((x) => x && x.addEventListener('change', restart));

  const credit = h('input', { type: 'text', id: 'import-credit', maxlength: 60, placeholder: t('e.g. the photographer\'s name') });
  const file = h('input', { type: 'file', id: 'import-files', accept: 'image/*', multiple: true });
  file.addEventListener('change', () => {
    const files = [...file.files];
    file.value = '';
    importFiles(ev, files, credit.value.trim(), restart);
  });
  // On a phone the filters, the import and the help fold behind one
  // button, so that the photos come on the first screen; on a wider
  // screen they stay out (the button is not shown there).
  const toolsId = 'photo-tools';
  const toolsCount = h('span', { class: 'count-badge', hidden: true });
  const toggle = h('button', { type: 'button', class: 'small tools-toggle', id: 'filters-toggle', 'aria-expanded': 'false', 'aria-controls': toolsId },
    t('Filters and import'), ' ', toolsCount);
  const tools = h('div', { id: toolsId, class: 'tools' });
  toggle.addEventListener('click', () => {
    const open = toggle.getAttribute('aria-expanded') !== 'true';
    toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
    tools.classList.toggle('open', open);
  });
  const countFilters = () => {
    const n = [status.value, favs.checked, loved.checked, challenge && challenge.value].filter(Boolean).length;
    toolsCount.hidden = !n;
    toolsCount.textContent = String(n);
    toolsCount.title = t('Filters on: {n}', { n });
  };
  [status, favs, loved, challenge].forEach((x) => x && x.addEventListener('change', countFilters));
  countFilters();
  // The console's skip link leads here.
  grid.dataset.skip = '';
  const skip = document.querySelector('a.skip');
  if (skip) skip.textContent = t('Skip to the photos');
  clear(tools,
    h('details', { class: 'section' }, h('summary', null, t('Import photos')), h('div', null,
      h('p', { class: 'small muted' }, t('Photos from a photographer or a camera: they are visible at once.')),
      h('div', { class: 'field' }, h('label', { for: 'import-credit' }, t('Credit (optional)')), credit),
      h('div', { class: 'field' }, h('label', { for: 'import-files' }, t('Photos')), file))),
    h('div', { class: 'row', style: 'margin-bottom:8px' }, status, challenge,
      h('label', { class: 'check', style: 'margin:0' }, favs, t('Favourites')),
      h('label', { class: 'check', style: 'margin:0' }, loved, t('Most loved')),
      h('span', { class: 'grow' }),
      h('button', { class: 'small', onclick: () => { photos.forEach((p) => selected.add(p.id)); redrawSel(); } }, t('Select all'))),
    h('p', { class: 'small muted' }, t('New photos appear here by themselves. Tap a photo to select it; use the buttons under it to approve, hide or favourite it.')),
    h('p', { class: 'small muted keys', id: 'photo-keys' }, t('Keyboard: '), KEYS().map(([k, w], i) => [i ? ' · ' : '', h('kbd', null, k), ' ', w])));
  clear(body, toggle, tools, grid, sentinel, note, bar);
  restart();
}

// lovedBox is the filter of the most loved: the photos guests hearted,
// most hearts first.
function lovedBox(params) {
  return h('input', { type: 'checkbox', id: 'filter-loved', checked: params.get('loved') === '1' });
}

// heartsSaid is what a tile's name adds for its hearts.
function heartsSaid(p) {
  return p.hearts > 0 ? ', ' + t('{n, plural, one {# heart} other {# hearts}}', { n: p.hearts }) : '';
}

// heartCount is a tile's count of hearts: nothing without any.
function heartCount(p) {
  return p.hearts > 0 ? h('span', { class: 'hearts-badge', 'aria-hidden': 'true' }, '♥ ' + p.hearts) : null;
}

async function importFiles(ev, files, credit, done) {
  if (!files.length) return;
  let ok = 0;
  for (const [k, f] of files.entries()) {
    toast(t('Importing {k} of {n}…', { k: k + 1, n: files.length }));
    const fd = new FormData();
    if (credit) fd.append('credit', credit); // fields before the file: the box streams the form
    fd.append('photo', f, f.name);
    try {
      await call(`/api/admin/events/${ev.id}/photos/import`, { method: 'POST', body: fd });
      ok++;
    } catch (e) {
      toast(`${f.name}: ${errText(e)}`, 'bad');
      if (notYet(e)) break;
    }
  }
  if (ok) toast(t('{n, plural, one {# photo imported} other {# photos imported}}', { n: ok }));
  done();
}

/** guestbookTab is the guestbook moderation of one event. */
export function guestbookTab(env, body) {
  const ev = env.ev();
  const status = select('status', [['', t('All messages')], ['pending', t('Waiting for review')], ['visible', t('Visible')], ['hidden', t('Hidden')]], '');
  status.setAttribute('aria-label', t('Which messages'));
  const list = h('div', { id: 'messages' });
  const sentinel = h('div', { class: 'sentinel' });
  const note = h('p', { class: 'muted center' });
  const selected = new Set();
  const count = h('strong');
  const bar = h('div', { class: 'actionbar', hidden: true }, h('div', { class: 'row' }, count,
    h('button', { class: 'small', onclick: (e) => act('approve', e.currentTarget) }, t('Approve')),
    h('button', { class: 'small', onclick: (e) => act('hide', e.currentTarget) }, t('Hide')),
    h('button', { class: 'small danger', onclick: (e) => act('delete', e.currentTarget) }, t('Delete'))));
  let cursor;
  // gen counts restarts: a page that arrives after a restart belongs to
  // the old filter and is dropped, not mixed into the new list.
  let gen = 0;
  let stop = () => {};
  const item = (m) => {
    const box = h('input', { type: 'checkbox', 'aria-label': t('Select') });
    box.addEventListener('change', () => {
      if (box.checked) selected.add(m.id); else selected.delete(m.id);
      bar.hidden = !selected.size;
      count.textContent = t('{n, plural, one {# message selected} other {# messages selected}}', { n: selected.size });
    });
    return h('div', { class: 'msg row', dataset: { id: m.id }, style: 'align-items:flex-start' },
      box,
      h('div', { class: 'grow' },
        h('div', { class: 'spread' }, h('span', { class: 'who' }, m.guestName || t('A guest')),
          h('span', { class: 'small muted' }, fmtTime(m.createdAt), ' ',
            m.status !== 'visible' ? h('span', { class: 'pill warn', dataset: { status: m.status } }, STATE[m.status] || m.status) : null)),
        m.text ? h('p', { style: 'white-space:pre-wrap;margin:4px 0' }, m.text) : null,
        m.hasAudio ? voiceNote(m, t('Play the voice message')) : null,
        h('div', { class: 'row msg-actions' },
          m.status !== 'visible' ? h('button', { type: 'button', class: 'small', 'data-action': 'approve', onclick: (e) => actOne(m, 'approve', e.currentTarget) }, t('Approve')) : null,
          m.status !== 'hidden' ? h('button', { type: 'button', class: 'small', 'data-action': 'hide', onclick: (e) => actOne(m, 'hide', e.currentTarget) }, t('Hide')) : null)));
  };
  // actOne approves or hides one message from its own buttons.
  const actOne = async (m, action, button) => {
    const res = await busy(button, call(`/api/admin/events/${ev.id}/messages`, { method: 'POST', body: { action, ids: [m.id] } }));
    if (res) { toast(t(action === 'approve' ? 'Approved' : 'Hidden')); restart(); }
  };
  const act = async (action, button) => {
    if (action === 'delete' && !confirmDo(t('Delete {n, plural, one {# message} other {# messages}}?', { n: selected.size }))) return;
    const res = await busy(button, call(`/api/admin/events/${ev.id}/messages`, { method: 'POST', body: { action, ids: [...selected] } }));
    if (res) { toast(t('{n, plural, one {# message changed} other {# messages changed}}', { n: res.changed })); restart(); }
  };
  const more = async () => {
    if (cursor === null) return false;
    const q = new URLSearchParams();
    if (status.value) q.set('status', status.value);
    if (cursor) q.set('before', cursor);
    const mine = gen;
    try {
      const res = await call(`/api/admin/events/${ev.id}/messages?${q}`);
      if (mine !== gen) return false;
      list.append(...res.messages.map(item));
      cursor = res.nextCursor;
      if (!list.children.length) note.textContent = t('No message yet.');
      return cursor !== null;
    } catch (e) {
      clear(note, notYet(e) ? unavailable(t('Guestbook moderation')) : h('span', { class: 'form-err' }, errText(e)));
      return false;
    }
  };
  const restart = () => {
    stop();
    gen++;
    cursor = undefined;
    selected.clear();
    bar.hidden = true;
    note.textContent = '';
    clear(list);
    stop = infinite(sentinel, more);
  };
  status.addEventListener('change', restart);
  // Messages pushed by the box: reload the list shortly after, unless
  // the host is selecting (then after their action).
  let soon = 0;
  const later = () => {
    clearTimeout(soon);
    soon = setTimeout(() => { if (!selected.size && list.isConnected) restart(); else if (list.isConnected) later(); }, 300);
  };
  ['message.added', 'message.changed', 'message.removed', 'reset'].forEach((n) => env.on(n, later));
  clear(body,
    h('div', { class: 'row', style: 'margin-bottom:8px' }, status, h('span', { class: 'grow' }),
      h('a', { class: 'btn small', href: `/api/admin/events/${ev.id}/messages/archive`, download: '' }, t('Download all (ZIP)'))),
    ev.guestbookEnabled ? null : h('div', { class: 'banner' }, t('The guestbook is off for this event: guests cannot write new messages.')),
    list, sentinel, note, bar);
  restart();
}
