// @ts-check
// The console's Mail screen (owners): the SMTP settings, the admin
// address and its alerts, a test mail, and the queue of mails with each
// one's state, reply and retry.
import { h, clear, toast, fmtTime } from './lib.js';
import { call, errText, field, check, select, showErrors, busy } from './admin-ui.js';
import { t } from './admin-i18n.js';

const card = (title, ...kids) => h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, title), kids);
const pillClass = { pending: 'pill', sent: 'pill good', failed: 'pill bad' };

/** queueList draws the mails of the queue, newest first. */
function queueList(items) {
  const status = { pending: t('waiting'), sent: t('sent'), failed: t('failed') };
  const purpose = { gallery: t('gallery link'), summary: t('summary'), invitation: t('invitation'), alert: t('alert'), test: t('test') };
  if (!items.length) return h('p', { class: 'muted' }, t('No mail yet.'));
  return h('ul', { class: 'list', id: 'mail-queue' }, items.map((m) => h('li', { dataset: { status: m.status, id: String(m.id) } },
    h('div', { class: 'spread' },
      h('span', null, h('strong', null, m.subject || '—'), ' ', h('span', { class: 'muted' }, '→ ', m.to)),
      h('span', { class: pillClass[m.status] || 'pill' }, status[m.status] || m.status)),
    h('div', { class: 'small muted' }, [
      purpose[m.purpose] || m.purpose, t('{n, plural, one {# try} other {# tries}}', { n: m.attempts }),
      m.sentAt ? t('sent {at}', { at: fmtTime(m.sentAt) }) : null,
      m.status === 'pending' && m.nextAttemptAt ? t('next try {at}', { at: fmtTime(m.nextAttemptAt) }) : null,
    ].filter(Boolean).join(' · ')),
    m.reply || m.error ? h('div', { class: 'small mono' }, m.reply || m.error) : null)));
}

/** mailPart fills box with the Mail screen. */
export async function mailPart(box) {
  const s = await call('/api/admin/mail');
  const smtp = s.smtp || {};
  const inp = (name, v, type = 'text') => h('input', { type, name, value: v ?? '', autocapitalize: 'none' });
  const host = inp('smtp.host', smtp.host);
  const port = inp('smtp.port', smtp.port || '', 'number');
  const user = inp('smtp.username', smtp.username);
  const pass = h('input', { type: 'password', name: 'smtp.password', autocomplete: 'new-password', placeholder: smtp.hasPassword ? t('Unchanged') : '' });
  // A password lost in a restore (a backup never carries it) can be typed
  // again, or removed for a server that takes none.
  const drop = smtp.hasPassword || smtp.passwordLost ? check('dropPassword', t('Remove the stored password'), false) : null;
  const from = inp('smtp.from', smtp.from);
  const sec = select('smtp.security', [['starttls', 'STARTTLS'], ['tls', 'TLS'], ['none', t('None')]], smtp.security || 'starttls');
  const admin = inp('adminEmail', s.adminEmail, 'email');
  const alerts = s.alerts || {};
  const alertNames = { storageLow: t('Storage is running low'), exportFailed: t('A cloud export failed'), backupFailed: t('A backup failed'), printerAttention: t('The printer needs a person') };
  const al = ['storageLow', 'exportFailed', 'backupFailed', 'printerAttention'].map((k) => check(k, alertNames[k], alerts[k]));
  const form = h('form', { novalidate: true, id: 'mail-form' },
    smtp.host ? null : h('div', { class: 'banner' }, t('Mail is not set up: mails wait in the queue (up to 48 hours) until it is.')),
    smtp.passwordLost ? h('div', { class: 'banner', id: 'mail-lost', role: 'status' },
      t('The mail server\'s password was lost in the restore: a backup never carries it. Type it again below and save; mails wait in the queue until then.'), ' ',
      h('button', { type: 'button', class: 'linkish', onclick: () => pass.focus() }, t('Type it again'))) : null,
    h('div', { class: 'two' },
      field('smtp.host', t('SMTP server'), host), field('smtp.port', t('Port'), port, t('Empty: 587 for STARTTLS, 465 for TLS, 25 for none.')),
      field('smtp.username', t('Username'), user), field('smtp.password', t('Password'), pass, smtp.passwordLost ? t('Lost in the restore: type it again.') : smtp.hasPassword || !smtp.username ? null : t('No password is stored.')),
      field('smtp.from', t('From address'), from, t('For example: Our wedding <photos@example.com>')), field('smtp.security', t('Security'), sec)),
    drop,
    field('adminEmail', t('Admin email'), admin, t('Summaries and alerts go here.')),
    h('div', { class: 'field', dataset: { field: 'alerts' } }, h('label', null, t('Alert me when')), al, h('div', { class: 'err' })),
    h('button', { class: 'primary', type: 'submit' }, t('Save')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const body = {
      smtp: { host: host.value.trim(), port: Number(port.value) || 0, username: user.value.trim(), from: from.value.trim(), security: sec.value },
      adminEmail: admin.value.trim(),
      alerts: Object.fromEntries(al.map((c) => { const i = c.querySelector('input'); return [i.name, i.checked]; })),
    };
    if (pass.value) body.smtp.password = pass.value;
    else if (drop && drop.querySelector('input').checked) body.smtp.password = null;
    if (await busy(form.querySelector('[type=submit]'), call('/api/admin/mail', { method: 'PUT', body }), (err) => showErrors(form, err))) {
      toast(t('Saved'));
      mailPart(box);
    }
  });
  const to = h('input', { type: 'email', id: 'mail-test-to', placeholder: s.adminEmail || t('you@example.com') });
  const testErr = h('div', { class: 'form-err', role: 'alert' });
  const q = s.queue || { pending: 0, failed: 0, items: [] };
  clear(box, card(t('Outgoing mail'), form),
    card(t('Test'),
      h('div', { class: 'row' }, h('div', { class: 'grow' }, to),
        h('button', {
          id: 'mail-test',
          onclick: async (e) => {
            testErr.textContent = '';
            const res = await busy(e.currentTarget, call('/api/admin/mail/test', { method: 'POST', body: to.value ? { to: to.value.trim() } : {} }),
              (err) => { testErr.textContent = errText(err); });
            if (res) toast(t('Test mail sent to {to}', { to: res.to }));
          },
        }, t('Send a test'))),
      testErr),
    card(t('Queue'),
      h('div', { class: 'spread' }, h('p', { id: 'mail-counts' }, t('{pending} waiting, {failed} failed.', { pending: q.pending, failed: q.failed })),
        h('span', null,
          h('button', { class: 'small', onclick: () => mailPart(box) }, t('Refresh')), ' ',
          q.pending || q.failed ? h('button', {
            class: 'small', id: 'mail-retry',
            onclick: async (e) => {
              const res = await busy(e.currentTarget, call('/api/admin/mail/retry', { method: 'POST' }));
              if (res) { toast(t('{requeued} requeued, {sent} sent, {failed} failed', { requeued: res.requeued, sent: res.sent, failed: res.failed })); mailPart(box); }
            },
          }, t('Retry now')) : null)),
      queueList(q.items || [])));
}
