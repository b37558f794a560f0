// The console's Backup screen (Settings → Backup) and the storage banner
// every console page shows while the card is nearly full.
import { api, h, clear, toast, fmtTime, fmtBytes } from './lib.js';
import { call, errText, field, showErrors, busy, confirmDo } from './admin-ui.js';

// Every English string of this module, in one place for the translation.
const T = {
  backup: 'Backup',
  holds: (files, bytes) => `A backup holds ${files} files, ${bytes}.`,
  free: (free) => `${free} free on the card.`,
  where: { card: 'Automatic backups go to the card (DATA_DIR/backups).', usb: 'Automatic backups go to the USB drive.' },
  usbHint: 'To keep them on a USB drive instead, make a folder named eventbox-backups at the top of the drive and plug it in.',
  download: 'Download a backup',
  days: 'Keep automatic backups for (days)',
  daysHint: '0 turns the nightly backups off; otherwise 14 to 3650 days. Older ones are removed, oldest first.',
  save: 'Save',
  saved: 'Saved',
  last: 'Last backup',
  lastNone: 'No automatic backup yet.',
  lastOK: (at, name) => `${at}: ${name}`,
  lastFailed: (at, error) => `${at}: failed. ${error}`,
  kept: 'Kept backups',
  keptNone: 'None kept yet.',
  restore: 'Restore',
  restoreHint: 'Replace everything on this box (events, photos, messages, accounts and sessions) with a backup ZIP made by an eventbox. The mail password is not in a backup: enter it again afterwards.',
  restoreButton: 'Restore this backup',
  chooseFirst: 'Choose a backup ZIP first',
  confirm: (name) => `Replace EVERYTHING on this box with the backup "${name}"?\n\nEvery event, photo, message and account now on the box is replaced, and cannot be brought back unless you downloaded a backup first.`,
  refused: (file, why) => `Refused, nothing changed: ${file} ${why || 'does not check out'}`,
  restoring: 'Restoring… the box restarts over the restored data.',
  restored: 'Restored',
  storageLow: (free) => `The card is nearly full (${free} left): guests cannot upload any more. Free some space (remove old events or backups) and uploads reopen by themselves.`,
};

const card = (title, ...kids) => h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, title), kids);

/** backupPart draws Settings → Backup into box. */
export async function backupPart(box) {
  const s = await call('/api/admin/backup');
  const days = h('input', { type: 'number', min: 0, max: 3650, value: s.retentionDays, inputmode: 'numeric' });
  const ret = h('form', { class: 'row', novalidate: true }, h('div', { class: 'grow' }, field('days', T.days, days, T.daysHint)),
    h('button', { type: 'submit' }, T.save));
  ret.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(ret, null);
    if (await busy(ret.querySelector('[type=submit]'), call('/api/admin/backup/retention', { method: 'PUT', body: { days: Number(days.value) } }), (err) => showErrors(ret, err))) toast(T.saved);
  });

  const file = h('input', { type: 'file', accept: '.zip,application/zip' });
  const restore = h('button', { class: 'danger' }, T.restoreButton);
  restore.addEventListener('click', async () => {
    const f = file.files[0];
    if (!f) return toast(T.chooseFirst, 'bad');
    if (!confirmDo(T.confirm(f.name))) return;
    toast(T.restoring);
    const res = await busy(restore, api('/api/admin/backup/restore', { method: 'POST', body: f, headers: { 'Content-Type': 'application/zip' } }),
      (err) => toast(err.details && err.details.file ? T.refused(err.details.file, err.serverMessage) : errText(err), 'bad'));
    if (res) {
      toast(T.restored);
      // The box restarts; the console reloads once it answers again.
      waitAndReload();
    }
  });

  const last = s.last;
  const space = s.space || {};
  clear(box,
    s.space && s.space.low ? h('div', { class: 'banner bad' }, T.storageLow(fmtBytes(space.freeBytes))) : null,
    card(T.backup,
      h('p', null, T.holds(s.files, fmtBytes(s.bytes)), ' ', space.freeBytes !== undefined ? T.free(fmtBytes(space.freeBytes)) : ''),
      h('p', { class: 'small muted' }, T.where[s.storage] || '', ' ', s.storage === 'card' ? T.usbHint : ''),
      h('a', { class: 'btn primary', href: '/api/admin/backup?download=1', download: '' }, T.download),
      ret,
      h('h3', null, T.last),
      h('p', { class: last && !last.ok ? 'banner bad' : '' }, !last ? T.lastNone : last.ok ? T.lastOK(fmtTime(last.at), last.name) : T.lastFailed(fmtTime(last.at), last.error)),
      h('h3', null, T.kept),
      s.backups && s.backups.length ? h('table', null, h('tbody', null, s.backups.slice().reverse().map((b) => h('tr', null,
        h('td', null, fmtTime(b.createdAt)), h('td', { class: 'small' }, b.name), h('td', null, fmtBytes(b.bytes)))))) : h('p', { class: 'muted' }, T.keptNone)),
    card(T.restore, h('p', { class: 'muted small' }, T.restoreHint), h('div', { class: 'row' }, file, restore)));
}

// waitAndReload reloads the console once the restarted box answers.
async function waitAndReload() {
  for (let i = 0; i < 60; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    try {
      await api('/api/health');
      location.reload();
      return;
    } catch (e) { /* still restarting */ }
  }
  location.reload();
}

/**
 * storageBanner returns the element that warns the hosts while the card is
 * nearly full; it looks again every minute.
 */
export function storageBanner() {
  const el = h('div', { class: 'banner bad', id: 'storage-banner', role: 'status', hidden: true });
  const look = async () => {
    try {
      const s = await api('/api/admin/storage');
      el.hidden = !s.low;
      if (s.low) clear(el, T.storageLow(fmtBytes(s.freeBytes)));
    } catch (e) { /* signed out or offline: keep what is shown */ }
  };
  look();
  setInterval(look, 60000);
  return el;
}
