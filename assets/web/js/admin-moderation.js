// Moderation in the console: the photo grid (filters, selections, actions,
// infinite scroll, import) and the guestbook.
import { h, clear, toast, fmtTime, infinite, mediaURL } from './lib.js';
import { call, errText, select, busy, notYet, unavailable, confirmDo } from './admin-ui.js';
import { openLightbox } from './lightbox.js';

// What each action does to a photo, to update the grid without a reload.
const EFFECT = {
  approve: (p) => { p.status = 'visible'; },
  hide: (p) => { p.status = 'hidden'; },
  favorite: (p) => { p.favorite = true; },
  unfavorite: (p) => { p.favorite = false; },
};

/** photosTab is the moderation grid of one event. */
export function photosTab(env, body) {
  const ev = env.ev();
  const params = new URLSearchParams(location.search);
  const status = select('status', [['', 'All photos'], ['pending', 'Waiting for review'], ['visible', 'Visible'], ['hidden', 'Hidden']], params.get('status') || '');
  const favs = h('input', { type: 'checkbox', checked: params.get('favorites') === '1' });
  const challenge = ev.challenges.length ? select('challenge', [['', 'Every challenge'], ...ev.challenges.map((c) => [c.id, c.label])], params.get('challenge') || '') : null;
  const grid = h('div', { class: 'grid', id: 'photos' });
  const sentinel = h('div', { class: 'sentinel' });
  const note = h('p', { class: 'muted center' });
  const count = h('strong');
  const bar = h('div', { class: 'actionbar', hidden: true }, h('div', { class: 'row' }, count,
    ...['approve', 'hide', 'favorite', 'unfavorite'].map((a) => h('button', { class: 'small', dataset: { action: a }, onclick: (e) => act(a, e.currentTarget) },
      { approve: 'Approve', hide: 'Hide', favorite: '★ Favorite', unfavorite: 'Unfavorite' }[a])),
    h('button', { class: 'small danger', dataset: { action: 'delete' }, onclick: (e) => act('delete', e.currentTarget) }, 'Delete'),
    h('button', { class: 'small linkish', onclick: () => { selected.clear(); redrawSel(); } }, 'Clear')));
  let photos = [];
  const selected = new Set();
  let cursor;
  // gen counts restarts: a page that arrives after a restart belongs to
  // the old filter and is dropped, not mixed into the new list.
  let gen = 0;
  let stop = () => {};

  const tile = (p) => {
    const t = h('button', {
      type: 'button', class: 'tile' + (p.status !== 'visible' ? ' dim' : '') + (selected.has(p.id) ? ' selected' : ''),
      dataset: { id: p.id }, 'aria-pressed': selected.has(p.id) ? 'true' : 'false', 'aria-label': `Photo by ${p.guestName || 'a guest'}`,
    },
    h('img', { src: mediaURL(p.id, 'thumb'), alt: '', loading: 'lazy', decoding: 'async' }),
    p.status !== 'visible' ? h('span', { class: 'badge' }, p.status === 'pending' ? 'review' : 'hidden') : null,
    p.favorite ? h('span', { class: 'star' }, '★') : null,
    p.video ? h('span', { class: 'play' }, '▶') : null);
    t.addEventListener('click', () => {
      if (selected.has(p.id)) selected.delete(p.id); else selected.add(p.id);
      redrawSel();
    });
    t.addEventListener('dblclick', () => view(p));
    return t;
  };
  const view = (p) => openLightbox(photos, photos.indexOf(p), {
    caption: (q) => `${q.guestName || 'Guest'} · ${fmtTime(q.createdAt)} · ${q.status}${q.favorite ? ' · ★' : ''}${q.downloads ? ` · ${q.downloads} downloads` : ''}`,
    actions: (q) => [h('a', { class: 'btn small', href: mediaURL(q.id, 'original', true), download: '' }, 'Original')],
  });
  const redrawSel = () => {
    for (const t of grid.children) {
      const on = selected.has(t.dataset.id);
      t.classList.toggle('selected', on);
      t.setAttribute('aria-pressed', on ? 'true' : 'false');
    }
    bar.hidden = selected.size === 0;
    count.textContent = `${selected.size} selected`;
  };
  const redrawTiles = () => {
    const keep = photos.filter((p) => (!status.value || p.status === status.value) && (!favs.checked || p.favorite));
    photos = keep;
    clear(grid, photos.map(tile));
    redrawSel();
  };
  const act = async (action, button) => {
    const ids = [...selected];
    if (action === 'delete' && !confirmDo(`Delete ${ids.length} photo${ids.length === 1 ? '' : 's'} for good?`)) return;
    const res = await busy(button, call(`/api/admin/events/${ev.id}/photos`, { method: 'POST', body: { action, ids } }));
    if (!res) return;
    if (action === 'delete') photos = photos.filter((p) => !selected.has(p.id));
    else photos.filter((p) => selected.has(p.id)).forEach(EFFECT[action]);
    selected.clear();
    toast(`${res.changed} changed`);
    redrawTiles();
  };
  const query = () => {
    const q = new URLSearchParams();
    if (status.value) q.set('status', status.value);
    if (favs.checked) q.set('favorites', '1');
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
      photos.push(...res.photos);
      grid.append(...res.photos.map(tile));
      cursor = res.nextCursor;
      note.textContent = photos.length ? (cursor === null ? `${photos.length} photo${photos.length === 1 ? '' : 's'}` : '') : 'No photo here yet.';
      return cursor !== null;
    } catch (e) {
      clear(note, notYet(e) ? unavailable('Photo moderation') : h('span', { class: 'form-err' }, errText(e), ' ', h('button', { class: 'small', onclick: restart }, 'Retry')));
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
  [status, favs, challenge].forEach((x) => x && x.addEventListener('change', restart));

  const credit = h('input', { type: 'text', id: 'import-credit', maxlength: 60, placeholder: 'e.g. the photographer\'s name' });
  const file = h('input', { type: 'file', id: 'import-files', accept: 'image/*', multiple: true });
  file.addEventListener('change', () => {
    const files = [...file.files];
    file.value = '';
    importFiles(ev, files, credit.value.trim(), restart);
  });
  clear(body,
    h('details', { class: 'section' }, h('summary', null, 'Import photos'), h('div', null,
      h('p', { class: 'small muted' }, 'Photos from a photographer or a camera: they are visible at once.'),
      h('div', { class: 'field' }, h('label', { for: 'import-credit' }, 'Credit (optional)'), credit),
      h('div', { class: 'field' }, h('label', { for: 'import-files' }, 'Photos'), file))),
    h('div', { class: 'row', style: 'margin-bottom:8px' }, status, challenge,
      h('label', { class: 'check', style: 'margin:0' }, favs, 'Favorites'),
      h('span', { class: 'grow' }),
      h('button', { class: 'small', onclick: () => { photos.forEach((p) => selected.add(p.id)); redrawSel(); } }, 'Select all')),
    h('p', { class: 'small muted' }, 'Tap photos to select them; double-tap to view one large.'),
    grid, sentinel, note, bar);
  restart();
}

async function importFiles(ev, files, credit, done) {
  if (!files.length) return;
  let ok = 0;
  for (const [k, f] of files.entries()) {
    toast(`Importing ${k + 1} of ${files.length}…`);
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
  if (ok) toast(`${ok} photo${ok === 1 ? '' : 's'} imported`);
  done();
}

/** guestbookTab is the guestbook moderation of one event. */
export function guestbookTab(env, body) {
  const ev = env.ev();
  const status = select('status', [['', 'All messages'], ['pending', 'Waiting for review'], ['visible', 'Visible'], ['hidden', 'Hidden']], '');
  const list = h('div', { id: 'messages' });
  const sentinel = h('div', { class: 'sentinel' });
  const note = h('p', { class: 'muted center' });
  const selected = new Set();
  const count = h('strong');
  const bar = h('div', { class: 'actionbar', hidden: true }, h('div', { class: 'row' }, count,
    h('button', { class: 'small', onclick: (e) => act('approve', e.currentTarget) }, 'Approve'),
    h('button', { class: 'small', onclick: (e) => act('hide', e.currentTarget) }, 'Hide'),
    h('button', { class: 'small danger', onclick: (e) => act('delete', e.currentTarget) }, 'Delete')));
  let cursor;
  // gen counts restarts: a page that arrives after a restart belongs to
  // the old filter and is dropped, not mixed into the new list.
  let gen = 0;
  let stop = () => {};
  const item = (m) => {
    const box = h('input', { type: 'checkbox', 'aria-label': 'Select' });
    box.addEventListener('change', () => {
      if (box.checked) selected.add(m.id); else selected.delete(m.id);
      bar.hidden = !selected.size;
      count.textContent = `${selected.size} selected`;
    });
    return h('div', { class: 'msg row', dataset: { id: m.id }, style: 'align-items:flex-start' },
      box,
      h('div', { class: 'grow' },
        h('div', { class: 'spread' }, h('span', { class: 'who' }, m.guestName || 'A guest'),
          h('span', { class: 'small muted' }, fmtTime(m.createdAt), ' ',
            m.status !== 'visible' ? h('span', { class: 'pill warn' }, m.status) : null)),
        m.text ? h('p', { style: 'white-space:pre-wrap;margin:4px 0' }, m.text) : null,
        m.hasAudio ? h('audio', { controls: true, preload: 'none', src: `/api/messages/${encodeURIComponent(m.id)}/audio` }) : null));
  };
  const act = async (action, button) => {
    if (action === 'delete' && !confirmDo(`Delete ${selected.size} message${selected.size === 1 ? '' : 's'}?`)) return;
    const res = await busy(button, call(`/api/admin/events/${ev.id}/messages`, { method: 'POST', body: { action, ids: [...selected] } }));
    if (res) { toast(`${res.changed} changed`); restart(); }
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
      if (!list.children.length) note.textContent = 'No message yet.';
      return cursor !== null;
    } catch (e) {
      clear(note, notYet(e) ? unavailable('Guestbook moderation') : h('span', { class: 'form-err' }, errText(e)));
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
  clear(body,
    h('div', { class: 'row', style: 'margin-bottom:8px' }, status, h('span', { class: 'grow' }),
      h('a', { class: 'btn small', href: `/api/admin/events/${ev.id}/messages/archive`, download: '' }, 'Download all (ZIP)')),
    ev.guestbookEnabled ? null : h('div', { class: 'banner' }, 'The guestbook is off for this event: guests cannot write new messages.'),
    list, sentinel, note, bar);
  restart();
}
