// @ts-check
// The cloud export in the console: the Cloud settings screen (WebDAV
// address, user, password, folder, or an S3-compatible bucket's endpoint,
// region, bucket, prefix, box name, keys and addressing; automatic export;
// a test that shows the server's own words, for S3 each of its three
// steps) and, for one event, its exports with a progress bar
// and their history. The event page and the End-of-event card use
// exportPanel and exportProgress.
import { h, clear, toast, fmtTime, fmtBytes } from './lib.js';
import { call, errText, field, check, showErrors, busy, notYet, unavailable, confirmDo } from './admin-ui.js';
import { t } from './admin-i18n.js';

const PILL = { queued: 'warn', running: 'warn', done: 'good', failed: 'bad' };

/** exportStatus names an export's states in the console's language. */
const exportStatus = () => ({ queued: t('waiting'), running: t('sending'), done: t('done'), failed: t('failed') });

/** cloudPart fills box with the Cloud settings screen (owners): WebDAV or an S3-compatible bucket. */
export async function cloudPart(box) {
  const s = await call('/api/admin/cloud');
  const s3 = s.s3 || {};
  const url = h('input', { type: 'url', value: s.url || '', placeholder: 'https://cloud.example.com/remote.php/dav/files/me/' });
  const user = h('input', { type: 'text', value: s.user || '', autocapitalize: 'none', autocomplete: 'off' });
  const pass = h('input', { type: 'password', autocomplete: 'new-password', placeholder: s.hasPassword ? t('Unchanged') : '' });
  const folder = h('input', { type: 'text', value: s.folder || '', placeholder: 'eventbox' });
  const auto = check('autoExport', t('Export each event automatically when it ends'), s.autoExport);
  const guestLink = h('input', { type: 'url', value: s.guestLink || '', placeholder: 'https://' });
  const guestPass = h('input', { type: 'text', value: s.guestLinkPassword || '', autocapitalize: 'none', autocomplete: 'off', spellcheck: 'false' });
  const plain = { type: 'text', autocapitalize: 'none', autocomplete: 'off', spellcheck: 'false' };
  const endpoint = h('input', { type: 'url', value: s3.endpoint || '', placeholder: 'https://s3.eu-central-1.amazonaws.com' });
  const region = h('input', { ...plain, value: s3.region || '', placeholder: 'us-east-1' });
  const bucket = h('input', { ...plain, value: s3.bucket || '' });
  const prefix = h('input', { ...plain, value: s3.prefix || '', placeholder: 'events' });
  const boxName = h('input', { ...plain, value: s3.boxName || '', placeholder: s.boxName || '' });
  const accessKey = h('input', { ...plain, value: s3.accessKey || '' });
  const secret = h('input', { type: 'password', autocomplete: 'new-password', placeholder: s3.hasSecret ? t('Unchanged') : '' });
  const pathStyle = check('s3.pathStyle', t('Path-style addressing (the bucket in the path: MinIO, SeaweedFS, Garage, Ceph)'), s3.pathStyle);
  const publicUrl = h('input', { type: 'url', value: s3.publicUrl || '', placeholder: 'https://' });
  const answer = h('div', { id: 'cloud-test-answer', role: 'status' });
  let kind = s.kind === 's3' ? 's3' : 'webdav';
  const body = () => {
    const b = { kind, folder: folder.value.trim(), autoExport: auto.querySelector('input').checked };
    if (kind === 's3') {
      b.s3 = { endpoint: endpoint.value.trim(), region: region.value.trim(), bucket: bucket.value.trim(), prefix: prefix.value.trim(),
        boxName: boxName.value.trim(), accessKey: accessKey.value.trim(), pathStyle: pathStyle.querySelector('input').checked, publicUrl: publicUrl.value.trim() };
      if (secret.value) b.s3.secret = secret.value;
      return b;
    }
    Object.assign(b, { url: url.value.trim(), user: user.value.trim(), guestLink: guestLink.value.trim(), guestLinkPassword: guestPass.value });
    if (pass.value) b.password = pass.value;
    return b;
  };
  const davPart = h('div', { id: 'cloud-webdav' },
    field('url', t('WebDAV address'), url, t('Nextcloud: https://cloud.example.com/remote.php/dav/files/<user>/ · NAS: https://nas.local:5006/')),
    h('div', { class: 'two' }, field('user', t('User'), user), field('password', t('Password'), pass,
      [s.passwordLost ? t('Lost in the restore: type it again.') + ' ' : '', t('For Nextcloud, an app password (Settings → Security).')])),
    field('folder', t('Folder'), folder, t('Each event gets a folder inside it, named from its date and name.')),
    h('div', { class: 'two' },
      field('guestLink', t('Public link for the guests (optional)'), guestLink, t('Only for a cloud that cannot share by itself: share the export folder there and paste its link. Nextcloud and ownCloud need nothing here.')),
      field('guestLinkPassword', t('Its password'), guestPass)));
  const s3Part = h('div', { id: 'cloud-s3' },
    field('s3.endpoint', t('Endpoint'), endpoint, t('The store’s address, without the bucket: https://s3.eu-central-1.amazonaws.com · https://s3.us-west-004.backblazeb2.com')),
    h('div', { class: 'two' }, field('s3.bucket', t('Bucket'), bucket), field('s3.region', t('Region'), region, t('Empty: us-east-1, which most stores other than AWS take.'))),
    h('div', { class: 'two' }, field('s3.prefix', t('Prefix'), prefix, t('Keys are <prefix>/<box name>/<event>/<file>, so many boxes share one bucket.')),
      field('s3.boxName', t('Box name'), boxName, t('Empty: this box’s own name, {name}.', { name: s.boxName || 'eventbox' }))),
    h('div', { class: 'two' }, field('s3.accessKey', t('Access key'), accessKey),
      field('s3.secret', t('Secret key'), secret, s3.secretLost ? t('Lost in the restore: type it again.') : null)),
    pathStyle,
    field('s3.publicUrl', t('Public address of the prefix (optional)'), publicUrl, t('If the bucket’s owner made the prefix public (a bucket policy or a CDN), its address: the guests’ mail links to the event’s page there. Empty: the mail carries a link the box signs, valid 7 days.')));
  const title = h('h2', { style: 'margin-top:0' });
  const show = () => {
    davPart.hidden = kind !== 'webdav';
    s3Part.hidden = kind !== 's3';
    title.textContent = kind === 's3' ? t('Cloud storage (S3)') : t('Cloud storage (WebDAV)');
  };
  const choice = (value, label) => h('label', { class: 'check' },
    h('input', { type: 'radio', name: 'kind', value, checked: kind === value, onchange: () => { kind = value; showErrors(form, null); clear(answer); show(); } }),
    h('span', null, label));
  const kinds = h('fieldset', { class: 'field', dataset: { field: 'kind' } },
    h('legend', null, t('Where the photos go')),
    choice('webdav', t('A WebDAV server (Nextcloud, ownCloud, a NAS)')),
    choice('s3', t('An S3-compatible bucket (AWS S3, Backblaze B2, Wasabi, Cloudflare R2, MinIO…)')),
    h('div', { class: 'err', 'aria-live': 'polite' }));
  const stepName = () => ({ write: t('Write a test object'), read: t('Read it back'), delete: t('Delete it') });
  const stepResult = () => ({ ok: t('passed'), failed: t('failed'), skipped: t('not tried') });
  const testAnswer = (res) => {
    if (!res.steps) return h('div', { class: 'banner ' + (res.ok ? 'good' : 'bad') }, res.ok ? t('The cloud answered: the folder is there and writable.') : t('The test failed: ') + (res.message || ''));
    return h('div', { class: 'banner ' + (res.ok ? 'good' : 'bad') },
      h('p', { style: 'margin:0' }, res.ok ? t('The bucket answered: it can be written, read and cleaned.') : t('The test failed: ') + (res.message || '')),
      h('ol', { class: 'small', style: 'margin:6px 0 0' }, res.steps.map((st) => h('li', { dataset: { step: st.step, result: st.result } },
        t('{step}: {result}', { step: stepName()[st.step] || st.step, result: stepResult()[st.result] || st.result })))));
  };
  const form = h('form', { novalidate: true },
    kinds, davPart, s3Part, auto,
    h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit' }, t('Save')),
      h('button', {
        type: 'button', id: 'cloud-test', onclick: async (e) => {
          showErrors(form, null);
          clear(answer);
          const res = await busy(e.currentTarget, call('/api/admin/cloud/test', { method: 'POST', body: body() }), (err) => showErrors(form, err));
          if (res) clear(answer, testAnswer(res));
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
  // After a restore from another box the password or secret did not come
  // along (a backup never carries it): say so, with a way to the field.
  const lost = s.passwordLost && kind === 'webdav' ? h('div', { class: 'banner', id: 'cloud-lost', role: 'status' },
    t('The WebDAV password was lost in the restore: a backup never carries it. Type it again below and save; exports fail until then.'), ' ',
    h('button', { type: 'button', class: 'linkish', onclick: () => pass.focus() }, t('Type it again')))
    : s3.secretLost && kind === 's3' ? h('div', { class: 'banner', id: 'cloud-lost', role: 'status' },
      t('The S3 secret key was lost in the restore: a backup never carries it. Type it again below and save; exports fail until then.'), ' ',
      h('button', { type: 'button', class: 'linkish', onclick: () => secret.focus() }, t('Type it again'))) : null;
  show();
  clear(box, h('div', { class: 'card' }, title, lost, h('p', { class: 'muted small' }, t('Each export copies the photos and videos as they were taken, a JPEG of every HEIC, the guestbook and a page that shows them offline into one folder per event. It runs when the box is online, one file at a time, and waits while guests upload.')), form));
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
