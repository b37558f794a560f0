// @ts-check
// The cloud export in the console: the Cloud settings screen (WebDAV
// address, user, password, folder, automatic export, a test that shows the
// server's own words) and, for one event, its exports with a progress bar
// and their history. The event page and the End-of-event card use
// exportPanel and exportProgress.
import { h, clear, toast, fmtTime, fmtBytes } from './lib.js';
import { call, errText, field, check, showErrors, busy, notYet, unavailable, confirmDo } from './admin-ui.js';
import { t } from './admin-i18n.js';

const PILL = { queued: 'warn', running: 'warn', done: 'good', failed: 'bad' };

/** exportStatus names an export's states in the console's language. */
const exportStatus = () => ({ queued: t('waiting'), running: t('sending'), done: t('done'), failed: t('failed') });

/** cloudPart fills box with the Cloud settings screen (owners). */
export async function cloudPart(box) {
  const s = await call('/api/admin/cloud');
  const url = h('input', { type: 'url', value: s.url || '', placeholder: 'https://cloud.example.com/remote.php/dav/files/me/' });
  const user = h('input', { type: 'text', value: s.user || '', autocapitalize: 'none', autocomplete: 'off' });
  const pass = h('input', { type: 'password', autocomplete: 'new-password', placeholder: s.hasPassword ? t('Unchanged') : '' });
  const folder = h('input', { type: 'text', value: s.folder || '', placeholder: 'eventbox' });
  const auto = check('autoExport', t('Export each event automatically when it ends'), s.autoExport);
  const guestLink = h('input', { type: 'url', value: s.guestLink || '', placeholder: 'https://' });
  const guestPass = h('input', { type: 'text', value: s.guestLinkPassword || '', autocapitalize: 'none', autocomplete: 'off', spellcheck: 'false' });
  const answer = h('div', { id: 'cloud-test-answer', role: 'status' });
  const body = () => {
    const b = { url: url.value.trim(), user: user.value.trim(), folder: folder.value.trim(), autoExport: auto.querySelector('input').checked,
      guestLink: guestLink.value.trim(), guestLinkPassword: guestPass.value };
    if (pass.value) b.password = pass.value;
    return b;
  };
  const form = h('form', { novalidate: true },
    field('url', t('WebDAV address'), url, t('Nextcloud: https://cloud.example.com/remote.php/dav/files/<user>/ · NAS: https://nas.local:5006/')),
    h('div', { class: 'two' }, field('user', t('User'), user), field('password', t('Password'), pass,
      [s.passwordLost ? t('Lost in the restore: type it again.') + ' ' : '', t('For Nextcloud, an app password (Settings → Security).')])),
    field('folder', t('Folder'), folder, t('Each event gets a folder inside it, named from its date and name.')), auto,
    h('div', { class: 'two' },
      field('guestLink', t('Public link for the guests (optional)'), guestLink, t('Only for a cloud that cannot share by itself: share the export folder there and paste its link. Nextcloud and ownCloud need nothing here.')),
      field('guestLinkPassword', t('Its password'), guestPass)),
    h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit' }, t('Save')),
      h('button', {
        type: 'button', id: 'cloud-test', onclick: async (e) => {
          showErrors(form, null);
          clear(answer);
          const res = await busy(e.currentTarget, call('/api/admin/cloud/test', { method: 'POST', body: body() }), (err) => showErrors(form, err));
          if (res) clear(answer, h('div', { class: 'banner ' + (res.ok ? 'good' : 'bad') }, res.ok ? t('The cloud answered: the folder is there and writable.') : t('The test failed: ') + (res.message || '')));
        },
      }, t('Test')),
      s.configured ? h('button', {
        type: 'button', class: 'danger', onclick: async (e) => {
          if (!confirmDo(t('Forget the cloud settings? Queued exports will fail.'))) return;
          if (await busy(e.currentTarget, call('/api/admin/cloud', { method: 'DELETE' }))) cloudPart(box);
        },
      }, t('Remove')) : null),
    answer);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const res = await busy(form.querySelector('[type=submit]'), call('/api/admin/cloud', { method: 'PUT', body: body() }), (err) => showErrors(form, err));
    if (res) { toast(t('Saved')); cloudPart(box); }
  });
  // After a restore from another box the password did not come along
  // (a backup never carries it): say so, with a way to the field.
  const lost = s.passwordLost ? h('div', { class: 'banner', id: 'cloud-lost', role: 'status' },
    t('The WebDAV password was lost in the restore: a backup never carries it. Type it again below and save; exports fail until then.'), ' ',
    h('button', { type: 'button', class: 'linkish', onclick: () => pass.focus() }, t('Type it again'))) : null;
  clear(box, h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, t('Cloud storage (WebDAV)')), lost, h('p', { class: 'muted small' }, t('Each export copies the photos and videos as they were taken, a JPEG of every HEIC, the guestbook and a page that shows them offline into one folder per event. It runs when the box is online, one file at a time, and waits while guests upload.')), form));
}

/** exportLine shows one export: its status, a progress bar and its counts. */
function exportLine(x) {
  return h('div', { class: 'export', dataset: { status: x.status } },
    h('div', { class: 'row small' }, h('span', { class: 'pill ' + (PILL[x.status] || '') }, exportStatus()[x.status] || x.status),
      h('span', null, t('{sent} of {total} files · {size}', { sent: x.sent, total: x.total, size: fmtBytes(x.bytes) }))),
    h('progress', { max: Math.max(x.total, 1), value: x.status === 'done' ? Math.max(x.total, 1) : x.sent, style: 'width:100%' }),
    x.error ? h('div', { class: 'small ' + (x.status === 'failed' ? 'form-err' : 'muted') }, x.status === 'failed' ? x.error : t('Will try again: ') + x.error) : null,
    x.folder ? h('div', { class: 'small muted' }, t('Folder: '), x.folder) : null);
}

const active = (x) => x.status === 'queued' || x.status === 'running';

/**
 * exportPanel fills box with an event's cloud export: buttons to export,
 * and the history with progress, redrawn every few seconds while one is
 * under way.
 */
export async function exportPanel(ev, me, box) {
  box.dataset.exportPanel = ev.id;
  box.redraw = () => exportPanel(ev, me, box);
  let data;
  try {
    data = await call(`/api/admin/events/${ev.id}/cloud`);
  } catch (e) {
    return clear(box, notYet(e) ? unavailable(t('Cloud storage (WebDAV)')) : h('div', { class: 'banner bad' }, errText(e)));
  }
  const start = (scope) => async (e) => {
    const res = await busy(e.currentTarget, call(`/api/admin/events/${ev.id}/cloud`, { method: 'POST', body: { scope } }));
    if (res) { toast(t('Export queued')); exportPanel(ev, me, box); }
  };
  const scope = { visible: t('Visible photos'), favorites: t('Favorites') };
  clear(box,
    data.configured ? h('div', { class: 'row' },
      h('button', { onclick: start('visible') }, t('Export visible photos')),
      h('button', { onclick: start('favorites') }, t('Export favorites')))
      : h('p', { class: 'muted' }, t('No cloud storage is set up. '), me.role === 'owner' ? h('a', { href: '/admin/settings/cloud' }, t('Set up WebDAV')) : t('Ask an owner to set up WebDAV.')),
    h('h3', null, t('Exports')),
    data.exports.length ? h('table', { style: 'margin-top:10px' },
      h('thead', null, h('tr', null, h('th', null, t('Asked')), h('th', null, t('What')), h('th', null, t('Progress')))),
      h('tbody', null, data.exports.map((x) => h('tr', null,
        h('td', null, fmtTime(x.createdAt)), h('td', null, scope[x.scope] || x.scope), h('td', null, exportLine(x))))))
      : h('p', { class: 'muted' }, t('No export yet.')));
  if (data.exports.some(active)) setTimeout(() => { if (box.isConnected) exportPanel(ev, me, box); }, 3000);
}

/**
 * exportProgress is a line that follows the event's latest export until it
 * ends: for the End-of-event card.
 */
export function exportProgress(eventID) {
  const box = h('div', { class: 'export-progress' });
  const draw = async () => {
    if (!box.isConnected && box.dataset.drawn) return;
    let data;
    try {
      data = await call(`/api/admin/events/${eventID}/cloud`);
    } catch {
      return;
    }
    if (!box.dataset.drawn) {
      // The event's export panel, drawn before the end, shows it too.
      /** @type {(HTMLElement & {redraw?: () => void}) | null} */ (document.querySelector(`[data-export-panel="${eventID}"]`))?.redraw?.();
    }
    box.dataset.drawn = '1';
    const x = data.exports[0];
    if (!x) return;
    clear(box, exportLine(x));
    if (active(x)) setTimeout(draw, 3000);
  };
  draw();
  return box;
}
