// The console's Mail screen (owners): the SMTP settings, the admin
// address and its alerts, a test mail, and the queue of mails with each
// one's state, reply and retry.
import { h, clear, toast, fmtTime } from './lib.js';
import { call, errText, field, check, select, showErrors, busy } from './admin-ui.js';

// T holds every English string of this screen, in one place for the
// console's translation.
const T = {
  settings: 'Outgoing mail',
  host: 'SMTP server', port: 'Port', portHint: 'Empty: 587 for STARTTLS, 465 for TLS, 25 for none.',
  username: 'Username', password: 'Password', unchanged: 'Unchanged', removePassword: 'Remove the stored password',
  from: 'From address', fromHint: 'For example: Our wedding <photos@example.com>',
  security: 'Security', admin: 'Admin email', adminHint: 'Summaries and alerts go here.',
  alertsLabel: 'Alert me when', storageLow: 'Storage is running low', exportFailed: 'A cloud export failed', backupFailed: 'A backup failed',
  save: 'Save', saved: 'Saved',
  test: 'Test', sendTest: 'Send a test', testSent: (to) => 'Test mail sent to ' + to,
  queue: 'Queue', counts: (q) => `${q.pending} waiting, ${q.failed} failed.`,
  retry: 'Retry now', retried: (r) => `${r.requeued} requeued, ${r.sent} sent, ${r.failed} failed`,
  refresh: 'Refresh', empty: 'No mail yet.',
  status: { pending: 'waiting', sent: 'sent', failed: 'failed' },
  purpose: { gallery: 'gallery link', summary: 'summary', invitation: 'invitation', alert: 'alert', test: 'test' },
  tries: (n) => (n === 1 ? '1 try' : `${n} tries`),
  next: (t) => 'next try ' + fmtTime(t), sentAt: (t) => 'sent ' + fmtTime(t),
  notSetUp: 'Mail is not set up: mails wait in the queue (up to 48 hours) until it is.',
  noPassword: 'No password is stored. After a restore on another box, enter it again.',
};

const card = (title, ...kids) => h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, title), kids);
const pillClass = { pending: 'pill', sent: 'pill good', failed: 'pill bad' };

/** queueList draws the mails of the queue, newest first. */
function queueList(items) {
  if (!items.length) return h('p', { class: 'muted' }, T.empty);
  return h('ul', { class: 'list', id: 'mail-queue' }, items.map((m) => h('li', { dataset: { status: m.status, id: String(m.id) } },
    h('div', { class: 'spread' },
      h('span', null, h('strong', null, m.subject || '—'), ' ', h('span', { class: 'muted' }, '→ ', m.to)),
      h('span', { class: pillClass[m.status] || 'pill' }, T.status[m.status] || m.status)),
    h('div', { class: 'small muted' }, [
      T.purpose[m.purpose] || m.purpose, T.tries(m.attempts),
      m.sentAt ? T.sentAt(m.sentAt) : null,
      m.status === 'pending' && m.nextAttemptAt ? T.next(m.nextAttemptAt) : null,
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
  const pass = h('input', { type: 'password', name: 'smtp.password', autocomplete: 'new-password', placeholder: smtp.hasPassword ? T.unchanged : '' });
  const drop = smtp.hasPassword ? check('dropPassword', T.removePassword, false) : null;
  const from = inp('smtp.from', smtp.from);
  const sec = select('smtp.security', [['starttls', 'STARTTLS'], ['tls', 'TLS'], ['none', 'None']], smtp.security || 'starttls');
  const admin = inp('adminEmail', s.adminEmail, 'email');
  const alerts = s.alerts || {};
  const al = ['storageLow', 'exportFailed', 'backupFailed'].map((k) => check(k, T[k], alerts[k]));
  const form = h('form', { novalidate: true, id: 'mail-form' },
    smtp.host ? null : h('div', { class: 'banner' }, T.notSetUp),
    h('div', { class: 'two' },
      field('smtp.host', T.host, host), field('smtp.port', T.port, port, T.portHint),
      field('smtp.username', T.username, user), field('smtp.password', T.password, pass, smtp.hasPassword || !smtp.username ? null : T.noPassword),
      field('smtp.from', T.from, from, T.fromHint), field('smtp.security', T.security, sec)),
    drop,
    field('adminEmail', T.admin, admin, T.adminHint),
    h('div', { class: 'field', dataset: { field: 'alerts' } }, h('label', null, T.alertsLabel), al, h('div', { class: 'err' })),
    h('button', { class: 'primary', type: 'submit' }, T.save));
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
      toast(T.saved);
      mailPart(box);
    }
  });
  const to = h('input', { type: 'email', id: 'mail-test-to', placeholder: s.adminEmail || 'you@example.com' });
  const testErr = h('div', { class: 'form-err', role: 'alert' });
  const q = s.queue || { pending: 0, failed: 0, items: [] };
  clear(box, card(T.settings, form),
    card(T.test,
      h('div', { class: 'row' }, h('div', { class: 'grow' }, to),
        h('button', {
          id: 'mail-test',
          onclick: async (e) => {
            testErr.textContent = '';
            const res = await busy(e.currentTarget, call('/api/admin/mail/test', { method: 'POST', body: to.value ? { to: to.value.trim() } : {} }),
              (err) => { testErr.textContent = errText(err); });
            if (res) toast(T.testSent(res.to));
          },
        }, T.sendTest)),
      testErr),
    card(T.queue,
      h('div', { class: 'spread' }, h('p', { id: 'mail-counts' }, T.counts(q)),
        h('span', null,
          h('button', { class: 'small', onclick: () => mailPart(box) }, T.refresh), ' ',
          q.pending || q.failed ? h('button', {
            class: 'small', id: 'mail-retry',
            onclick: async (e) => {
              const res = await busy(e.currentTarget, call('/api/admin/mail/retry', { method: 'POST' }));
              if (res) { toast(T.retried(res)); mailPart(box); }
            },
          }, T.retry) : null)),
      queueList(q.items || [])));
}
