// The console's Backup screen (Settings → Backup) and the storage banner
// every console page shows while the card is nearly full.
import { api, h, clear, toast, fmtTime, fmtBytes } from './lib.js';
import { call, errText, field, showErrors, busy, confirmDo } from './admin-ui.js';
import { t } from './admin-i18n.js';

/** storageLow is the warning while the card is nearly full, free bytes left. */
const storageLow = (free) => t('The card is nearly full ({free} left): guests cannot upload any more. Free some space (remove old events or backups) and uploads reopen by themselves.', { free: fmtBytes(free) });

const card = (title, ...kids) => h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, title), kids);

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

  const file = h('input', { type: 'file', accept: '.zip,application/zip' });
  const restore = h('button', { class: 'danger' }, t('Restore this backup'));
  restore.addEventListener('click', async () => {
    const f = file.files[0];
    if (!f) return toast(t('Choose a backup ZIP first'), 'bad');
    if (!confirmDo(t('Replace EVERYTHING on this box with the backup "{name}"?\n\nEvery event, photo, message and account now on the box is replaced, and cannot be brought back unless you downloaded a backup first.', { name: f.name }))) return;
    toast(t('Restoring… the box restarts over the restored data.'));
    const res = await busy(restore, api('/api/admin/backup/restore', { method: 'POST', body: f, headers: { 'Content-Type': 'application/zip' } }),
      (err) => toast(err.details && err.details.file ? t('Refused, nothing changed: {file} {why}', { file: err.details.file, why: err.serverMessage || t('does not check out') }) : errText(err), 'bad'));
    if (res) {
      toast(t('Restored'));
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
    card(t('Restore'), h('p', { class: 'muted small' }, t('Replace everything on this box (events, photos, messages, accounts and sessions) with a backup ZIP made by an eventbox. From another box, the mail and cloud passwords and the webhooks\' addresses and secrets must be entered again afterwards.')), h('div', { class: 'row' }, file, restore)));
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
  const el = h('aside', { class: 'banner bad', id: 'storage-banner', role: 'status', hidden: true });
  const look = async () => {
    try {
      const s = await api('/api/admin/storage');
      el.hidden = !s.low;
      if (s.low) clear(el, storageLow(s.freeBytes));
    } catch (e) { /* signed out or offline: keep what is shown */ }
  };
  look();
  setInterval(look, 60000);
  return el;
}
