// @ts-check
// The console's Backup screen (Settings → Backup) with the guests'
// unfinished uploads, the storage banner every console page shows while
// the card is nearly full, and the banner of the secrets a restore from
// another box lost.
import { api, h, clear, toast, fmtTime, fmtBytes, guestLabel } from './lib.js';
import { call, errText, field, showErrors, busy, confirmDo } from './admin-ui.js';
import { t } from './admin-i18n.js';

/** storageLow is the warning while the card is nearly full, free bytes left. */
const storageLow = (free) => t('The card is nearly full ({free} left): guests cannot upload any more. Free some space (remove old events or backups) and uploads reopen by themselves.', { free: fmtBytes(free) });

const card = (title, ...kids) => h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, title), kids);

// UNFINISHED is the card of the guests' unfinished uploads, which the
// storage banner links to: they may be what fills the card.
const UNFINISHED = '/admin/settings/backup#unfinished-uploads';

/** percent writes a share (0 to 1) as the console's language does: 25%, 25 %. */
const percent = (x) => new Intl.NumberFormat(document.documentElement.lang || undefined, { style: 'percent', maximumFractionDigits: 0 }).format(x);

/**
 * unfinishedCard is the card of the guests' unfinished uploads, for
 * owners (the box answers anyone else 403, and the card stays hidden):
 * each with its event, guest, file and progress, and a button to remove
 * it; the space they reserve on the card in all. When the page's address
 * names the card (the storage banner's link), it is brought into view.
 */
function unfinishedCard() {
  const title = h('h2', { id: 'unfinished-title', tabindex: '-1', style: 'margin-top:0' }, t('Unfinished uploads'));
  const body = h('div', null, h('p', { class: 'muted' }, t('Loading…')));
  const el = h('section', { class: 'card uploads', id: 'unfinished-uploads', 'aria-labelledby': 'unfinished-title' }, title,
    h('p', { class: 'small muted' }, t('Files guests started to send and have not finished. The guest\'s phone carries on by itself when the guest comes back. Removing one deletes what arrived of it and frees the space it reserves on the card.')),
    body);
  const kinds = { photo: t('Photo'), video: t('Video'), poster: t('Video cover'), voice: t('Voice note') };
  const row = (u, draw) => {
    const file = u.filename || t('A file without a name');
    const guest = guestLabel(u.guestName, t('Photo booth')) || t('Unnamed');
    const event = u.eventName || u.eventSlug;
    const share = u.length > 0 ? Math.floor((u.offset * 100) / u.length) / 100 : 0;
    const remove = h('button', { class: 'small danger', type: 'button', 'aria-label': t('Remove {file}', { file }) }, t('Remove'));
    remove.addEventListener('click', async () => {
      if (!confirmDo(t('Remove the unfinished upload "{file}" from {guest} ({event})? What arrived of it is deleted and the space it reserves is freed. If the guest is still here, their phone sends the file again from the start.', { file, guest, event }))) return;
      const done = await busy(remove, call('/api/admin/uploads/' + encodeURIComponent(u.id), { method: 'DELETE' }).then(() => true), (e) => {
        toast(errText(e), 'bad');
        if (e.status === 404) draw(true); // finished or gone meanwhile
      });
      if (done) {
        toast(t('Upload removed'));
        draw(true);
      }
    });
    return h('li', { dataset: { upload: u.id } },
      h('div', { class: 'spread' }, h('strong', { class: 'file' }, file), h('span', { class: 'pill' }, kinds[u.kind] || u.kind)),
      h('div', { class: 'small' }, t('{event} · from {guest}', { event, guest })),
      h('progress', { max: Math.max(u.length, 1), value: u.offset, 'aria-label': t('Progress of {file}', { file }) }),
      h('div', { class: 'small' }, t('{done} of {total} ({percent})', { done: fmtBytes(u.offset), total: fmtBytes(u.length), percent: percent(share) }),
        u.reservedBytes > 0 ? [' · ', t('reserving {size} for the rest', { size: fmtBytes(u.reservedBytes) })] :
          u.kind === 'poster' && u.offset >= u.length ? [' · ', t('it waits for its video')] : null),
      h('div', { class: 'small muted' }, t('Last activity: {at}.', { at: fmtTime(Date.parse(u.updatedAt)) }), ' ',
        t('If the guest does not come back, it goes by itself on {at}.', { at: fmtTime(Date.parse(u.expiresAt)) })),
      h('div', { class: 'row', style: 'margin-top:6px' }, remove));
  };
  let first = true;
  const draw = async (focus) => {
    let list;
    try {
      list = await call('/api/admin/uploads');
    } catch (e) {
      if ([403, 404, 501].includes(e.status)) { // not an owner, or not offered by this box
        el.hidden = true;
        return;
      }
      clear(body, h('p', { class: 'banner bad' }, errText(e)));
      return;
    }
    const ups = list.uploads || [];
    clear(body, ups.length ? [
      h('p', { id: 'unfinished-reserved' }, list.reservedBytes > 0 ? t('Together they reserve {size} on the card for what is still to come.', { size: fmtBytes(list.reservedBytes) }) :
        t('None of them reserves space on the card now: each keeps only what already arrived.')),
      h('ul', { class: 'list' }, ups.map((u) => row(u, draw))),
    ] : h('p', { class: 'muted', id: 'unfinished-none' }, t('No upload is waiting.')));
    if (focus) title.focus();
    if (first && location.hash === '#unfinished-uploads') {
      // Clear of the console's bar, which stays at the top.
      const bar = /** @type {HTMLElement | null} */ (document.querySelector('header.top'));
      el.style.scrollMarginTop = (bar ? bar.offsetHeight : 0) + 8 + 'px';
      el.scrollIntoView({ block: 'start' });
      title.focus({ preventScroll: true });
    }
    first = false;
  };
  draw();
  return el;
}

/** backupPart draws Settings → Backup into box. */
export async function backupPart(box) {
  const s = await call('/api/admin/backup');
  const days = h('input', { type: 'number', min: 0, max: 3650, value: s.retentionDays, inputmode: 'numeric' });
  const ret = h('form', { class: 'row', novalidate: true }, h('div', { class: 'grow' }, field('days', t('Keep automatic backups for (days)'), days, t('0 turns the nightly backups off; otherwise 14 to 3650 days. Older ones are removed, oldest first.'))),
    h('button', { type: 'submit' }, t('Save')));
  ret.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(ret, null);
    if (await busy(ret.querySelector('[type=submit]'), call('/api/admin/backup/retention', { method: 'PUT', body: { days: Number(days.value) } }), (err) => showErrors(ret, err))) toast(t('Saved'));
  });

  const file = h('input', { type: 'file', id: 'restore-file', accept: '.zip,application/zip' });
  // What the chosen backup is, read from its manifest in the browser.
  const about = h('p', { class: 'small', id: 'restore-about', 'aria-live': 'polite' });
  const done = h('div', { id: 'restore-done', role: 'status' });
  let chosen = null; // { file, manifest } of the backup chosen
  file.addEventListener('change', async () => {
    const f = file.files[0];
    chosen = null;
    clear(done);
    clear(about);
    if (!f) return;
    const m = await backupManifest(f).catch(() => null);
    if (file.files[0] !== f) return;
    chosen = { file: f, manifest: m };
    about.textContent = m ? t('Backup made on {at} ({size}).', { at: fmtTime(m.createdAt), size: fmtBytes(m.bytes) }) :
      t('This file does not look like an eventbox backup; the box checks it again before it changes anything.');
  });
  const restore = h('button', { class: 'danger', type: 'button' }, t('Restore this backup'));
  restore.addEventListener('click', async () => {
    const f = file.files[0];
    if (!f) return toast(t('Choose a backup ZIP first'), 'bad');
    const m = chosen && chosen.file === f ? chosen.manifest : await backupManifest(f).catch(() => null);
    const when = m ? fmtTime(m.createdAt) : t('an unknown date');
    const events = await call('/api/admin/events').then((r) => r.events.length).catch(() => null);
    const now = events === null ? t('{files, plural, one {# file} other {# files}} ({size})', { files: s.files, size: fmtBytes(s.bytes) }) :
      t('{events, plural, one {# event} other {# events}}, {files, plural, one {# file} other {# files}} ({size})', { events, files: s.files, size: fmtBytes(s.bytes) });
    if (!confirmDo(t('Replace EVERYTHING on this box with the backup of {at} ("{name}")?', { at: when, name: f.name }) + '\n\n' +
      t('Replaced: what is on the box now ({now}), every account and every session: you may have to sign in again with the backup\'s passwords. It cannot be brought back unless you downloaded a backup first.', { now }))) return;
    clear(done, h('p', { class: 'banner' }, t('Restoring… the box restarts over the restored data.')));
    const res = await busy(restore, api('/api/admin/backup/restore', { method: 'POST', body: f, headers: { 'Content-Type': 'application/zip' } }),
      (err) => clear(done, h('p', { class: 'banner bad' }, err.details && err.details.file ? t('Refused, nothing changed: {file} {why}', { file: err.details.file, why: err.serverMessage || t('does not check out') }) : errText(err))));
    if (res) {
      const at = res.manifest && res.manifest.createdAt ? fmtTime(res.manifest.createdAt) : when;
      clear(done, h('p', { class: 'banner good' }, t('The backup of {at} is in place. The box restarts over it now; this page comes back by itself in a moment.', { at })));
      try { sessionStorage.setItem(RESTORED, at); } catch { /* private mode: the banner above says it */ }
      // The box restarts; the console reloads once it answers again.
      waitAndReload();
    }
  });

  const last = s.last;
  const where = { card: t('Automatic backups go to the card (DATA_DIR/backups).'), usb: t('Automatic backups go to the USB drive.') };
  const space = s.space || {};
  clear(box,
    s.space && s.space.low ? h('div', { class: 'banner bad' }, storageLow(space.freeBytes)) : null,
    card(t('Backup'),
      h('p', null, t('A backup holds {files} files, {size}: every event, photo, message and account. The mail and cloud passwords and the webhooks\' addresses and secrets are in it only sealed with a key that stays on this box: restored on another box, they must be entered again. Keep the file private all the same: it holds the guests\' photos and the accounts\' password hashes.', { files: s.files, size: fmtBytes(s.bytes) }), ' ', space.freeBytes !== undefined ? t('{free} free on the card.', { free: fmtBytes(space.freeBytes) }) : ''),
      h('p', { class: 'small muted' }, where[s.storage] || '', ' ', s.storage === 'card' ? t('To keep them on a USB drive instead, make a folder named eventbox-backups at the top of the drive and plug it in.') : ''),
      h('a', { class: 'btn primary', href: '/api/admin/backup?download=1', download: '' }, t('Download a backup')),
      ret,
      h('h3', null, t('Last backup')),
      h('p', { class: last && !last.ok ? 'banner bad' : '' }, !last ? t('No automatic backup yet.') : last.ok ? t('{at}: {name}', { at: fmtTime(last.at), name: last.name }) : t('{at}: failed. {error}', { at: fmtTime(last.at), error: last.error })),
      h('h3', null, t('Kept backups')),
      s.backups && s.backups.length ? h('table', null, h('tbody', null, s.backups.slice().reverse().map((b) => h('tr', null,
        h('td', null, fmtTime(b.createdAt)), h('td', { class: 'small' }, b.name), h('td', null, fmtBytes(b.bytes)))))) : h('p', { class: 'muted' }, t('None kept yet.'))),
    unfinishedCard(),
    card(t('Restore'), h('p', { class: 'muted small' }, t('Replace everything on this box (events, photos, messages, accounts and sessions) with a backup ZIP made by an eventbox. From another box, the mail and cloud passwords and the webhooks\' addresses and secrets must be entered again afterwards.')),
      h('div', { class: 'field' }, h('label', { for: 'restore-file' }, t('Backup ZIP')), file), about,
      h('div', { class: 'row' }, restore), done));
}

// RESTORED is the session key that carries the restored backup's date
// over the reload after a restore.
const RESTORED = 'eventbox.restored';

/**
 * restoreNote is the banner the first console page after a restore shows
 * (the restored backup's date), or null; it says it once.
 */
export function restoreNote() {
  let at;
  try {
    at = sessionStorage.getItem(RESTORED);
    sessionStorage.removeItem(RESTORED);
  } catch { return null; }
  if (!at) return null;
  return h('p', { class: 'banner good', id: 'restored', role: 'status' },
    t('Restore done: the box now runs on the backup of {at}. If you are asked to sign in, use a password of that backup.', { at }));
}

/**
 * backupManifest reads manifest.json out of a backup ZIP in the browser
 * (only the ZIP's directory and that entry are read, however large the
 * file): { createdAt, app, files, bytes }. It rejects a file that is not
 * a ZIP or has no manifest.
 */
export async function backupManifest(file) {
  const u16 = (v, o) => v.getUint16(o, true);
  const u32 = (v, o) => v.getUint32(o, true);
  const u64 = (v, o) => u32(v, o) + u32(v, o + 4) * 2 ** 32;
  const read = async (at, n) => new DataView(await file.slice(at, at + n).arrayBuffer());
  const tailLen = Math.min(file.size, 22 + 65535 + 20);
  const tail = await read(file.size - tailLen, tailLen);
  let eocd = -1;
  for (let i = tailLen - 22; i >= 0; i--) if (u32(tail, i) === 0x06054b50) { eocd = i; break; }
  if (eocd < 0) throw new Error('not a ZIP');
  let dirSize = u32(tail, eocd + 12);
  let dirAt = u32(tail, eocd + 16);
  if (dirAt === 0xffffffff || dirSize === 0xffffffff) { // ZIP64: its end record says where the directory is
    if (eocd < 20 || u32(tail, eocd - 20) !== 0x07064b50) throw new Error('no ZIP64 locator');
    const end64 = await read(u64(tail, eocd - 12), 56);
    if (u32(end64, 0) !== 0x06064b50) throw new Error('no ZIP64 end');
    dirSize = u64(end64, 40);
    dirAt = u64(end64, 48);
  }
  if (dirSize > 64 << 20) throw new Error('directory too large');
  const dir = await read(dirAt, dirSize);
  for (let o = 0; o + 46 <= dir.byteLength && u32(dir, o) === 0x02014b50;) {
    const method = u16(dir, o + 10);
    let size = u32(dir, o + 20);
    let rawSize = u32(dir, o + 24);
    const nameLen = u16(dir, o + 28);
    const extraLen = u16(dir, o + 30);
    const commentLen = u16(dir, o + 32);
    let local = u32(dir, o + 42);
    const name = new TextDecoder().decode(new Uint8Array(dir.buffer, dir.byteOffset + o + 46, nameLen));
    if (name === 'manifest.json') {
      for (let e = o + 46 + nameLen; e + 4 <= o + 46 + nameLen + extraLen;) { // the ZIP64 sizes and offset
        const id = u16(dir, e);
        const len = u16(dir, e + 2);
        if (id === 1) {
          let p = e + 4;
          if (rawSize === 0xffffffff) { rawSize = u64(dir, p); p += 8; }
          if (size === 0xffffffff) { size = u64(dir, p); p += 8; }
          if (local === 0xffffffff) local = u64(dir, p);
        }
        e += 4 + len;
      }
      if (rawSize > 64 << 20) throw new Error('manifest too large');
      const head = await read(local, 30);
      const start = local + 30 + u16(head, 26) + u16(head, 28);
      let body = file.slice(start, start + size);
      if (method === 8) body = await new Response(body.stream().pipeThrough(new DecompressionStream('deflate-raw'))).blob();
      else if (method !== 0) throw new Error('unknown compression');
      const m = JSON.parse(await body.text());
      if (!m || typeof m.createdAt !== 'number' || !Array.isArray(m.files)) throw new Error('not a backup manifest');
      return m;
    }
    o += 46 + nameLen + extraLen + commentLen;
  }
  throw new Error('no manifest');
}

// waitAndReload reloads the console once the restarted box answers.
async function waitAndReload() {
  for (let i = 0; i < 60; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    try {
      await api('/api/health');
      location.reload();
      return;
    } catch { /* still restarting */ }
  }
  location.reload();
}

// OWN_SCREEN are the screens where each lost secret is typed again; there
// the screen's own notice says it, and the banner below stays out.
const OWN_SCREEN = /^\/admin\/settings\/(cloud|mail|webhooks)\/?$/;

/**
 * lostSecrets asks the box which secrets a restore from another box lost
 * (a backup carries them only sealed with the key of the box that made
 * it) and answers one line for each: [{ kind, href, text }].
 */
async function lostSecrets() {
  const [cloud, mail, hooks] = await Promise.all(['/api/admin/cloud', '/api/admin/mail', '/api/admin/webhooks']
    .map((p) => api(p).catch(() => null))); // not offered, or offline: nothing to say
  const out = [];
  if (cloud && cloud.passwordLost) out.push({ kind: 'cloud', href: '/admin/settings/cloud', text: t('The cloud export\'s WebDAV password') });
  if (cloud && cloud.s3 && cloud.s3.secretLost) out.push({ kind: 'cloud', href: '/admin/settings/cloud', text: t('The cloud export\'s S3 secret key') });
  if (mail && mail.smtp && mail.smtp.passwordLost) out.push({ kind: 'mail', href: '/admin/settings/mail', text: t('The mail server\'s password (SMTP)') });
  for (const w of (hooks && hooks.webhooks) || []) {
    const re = w.reenter || [];
    if (!re.length) continue;
    const what = re.includes('url') && re.includes('secret') ? t('Webhook “{name}”: its address and its signing secret', { name: w.name }) :
      re.includes('url') ? t('Webhook “{name}”: its address', { name: w.name }) : t('Webhook “{name}”: its signing secret', { name: w.name });
    out.push({ kind: 'webhook', href: '/admin/settings/webhooks', text: what });
  }
  return out;
}

/**
 * reenterBanner returns the element that lists, on the owners' console
 * pages, the secrets a restore lost, each a link to the screen where it is
 * typed again. look(path) asks the box again: at the first page, then at
 * every page while a secret is missing, so that the banner goes once all
 * are entered (a restore that loses more reloads the console). Its
 * data-lost is how many lines the last look found.
 */
export function reenterBanner() {
  const list = h('ul');
  const el = h('section', { class: 'banner', id: 'reenter-banner', role: 'status', hidden: true },
    h('p', null, t('Lost in the restore: a backup never carries these secrets. Type them again on this box; until then, what needs them does not work.')), list);
  let lines = null; // what the last look found; null before the first
  let said = '';
  el.look = async (path) => {
    if (lines && !lines.length) return; // nothing lost: only a restore changes that
    el.hidden = !lines || OWN_SCREEN.test(path);
    delete el.dataset.lost;
    const found = await lostSecrets();
    lines = found;
    const now = found.map((l) => l.kind + l.text).join('\n');
    if (now !== said) { // a live region: redrawn only when it says something new
      said = now;
      clear(list, found.map((l) => h('li', { dataset: { lost: l.kind } }, h('a', { href: l.href }, l.text))));
    }
    el.dataset.lost = String(found.length);
    el.hidden = !found.length || OWN_SCREEN.test(location.pathname);
  };
  return el;
}

/**
 * storageBanner returns the element that warns the hosts while the card is
 * nearly full; it looks again every minute. owner() says whether the
 * signed-in account is an owner: an owner's banner links to the guests'
 * unfinished uploads, which may be what fills the card. Its draw() redraws
 * it from the last look for the account signed in now.
 */
export function storageBanner(owner = () => false) {
  const el = h('section', { class: 'banner bad', id: 'storage-banner', role: 'status', hidden: true });
  let last = null; // the last answer of the box
  let said = ''; // a live region: redrawn only when it says something new
  el.draw = () => {
    el.hidden = !last || !last.low;
    if (el.hidden) return;
    const link = owner();
    const now = last.freeBytes + (link ? ' uploads' : '');
    if (now === said) return;
    said = now;
    clear(el, storageLow(last.freeBytes), link ? [' ', h('a', { href: UNFINISHED }, t('Unfinished uploads may be taking up space: see them.'))] : null);
  };
  const look = async () => {
    try {
      last = await api('/api/admin/storage');
      el.draw();
    } catch { /* signed out or offline: keep what is shown */ }
  };
  look();
  setInterval(look, 60000);
  return el;
}
