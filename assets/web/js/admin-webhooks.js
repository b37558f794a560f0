// The console's Webhooks screen (owners): the webhooks with their test,
// enable/disable, edit and delete, a form for a new one, and the recent
// deliveries with their status. Every English string is in T, for the
// translation.
import { h, clear, toast, fmtTime } from './lib.js';
import { call, errText, field, check, select, showErrors, busy, confirmDo } from './admin-ui.js';

const T = {
  title: 'Webhooks',
  intro: 'A webhook sends a message to a phone (ntfy), a chat (Discord, Slack) or your own server (JSON) when something happens. While the box is offline, messages wait and go out when it is back online (for up to 48 hours). Photos and guestbook messages are grouped: at most one message every 10 minutes per event.',
  none: 'No webhook yet.',
  name: 'Name',
  type: 'Type',
  url: 'Address',
  urlKeep: (shown) => `Unchanged (${shown}…)`,
  secret: 'Signing secret',
  secretHint: 'With a secret, each message carries X-Eventbox-Signature (HMAC-SHA256).',
  secretKeep: 'Unchanged',
  secretNone: 'Optional',
  secretRemove: 'Remove the secret',
  kinds: 'Send on',
  enabled: 'Enabled',
  add: 'Add webhook',
  save: 'Save',
  saved: 'Saved',
  newOne: 'New webhook',
  edit: 'Edit',
  on: 'on',
  off: 'off',
  enable: 'Enable',
  disable: 'Disable',
  test: 'Send a test',
  testOK: 'The receiver took the test.',
  testFailed: 'The test failed: ',
  del: 'Delete',
  delAsk: (name) => `Delete the webhook ${name}? Its waiting messages are dropped.`,
  deliveries: 'Recent deliveries',
  noDeliveries: 'None yet.',
  cols: ['When', 'Webhook', 'Kind', 'Status', 'Tries', 'Answer', 'Next try'],
  status: { sent: 'sent', pending: 'waiting', failed: 'failed' },
  refresh: 'Refresh',
  gone: 'deleted',
  kindNames: {
    'photo.uploaded': 'New photos',
    'photo.pending': 'Photos to moderate',
    'message.created': 'Guestbook messages',
    'event.ended': 'Event ended',
    'export.finished': 'Cloud export finished',
    'export.failed': 'Cloud export failed',
    'backup.failed': 'Backup failed',
    'storage.low': 'Storage running low',
  },
  types: [['ntfy', 'ntfy'], ['discord', 'Discord'], ['slack', 'Slack'], ['json', 'JSON']],
};

const KINDS = Object.keys(T.kindNames);

const card = (title, ...kids) => h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, title), kids);
const picked = (el) => [...el.querySelectorAll('input:checked')].map((i) => i.value);

/** webhooksPart fills box with the Webhooks screen. */
export async function webhooksPart(box) {
  const { webhooks, deliveries } = await call('/api/admin/webhooks');
  const again = () => webhooksPart(box).catch((e) => toast(errText(e), 'bad'));
  const names = Object.fromEntries(webhooks.map((w) => [w.id, w.name]));
  clear(box,
    card(T.title, h('p', { class: 'muted small' }, T.intro),
      h('ul', { class: 'list' }, webhooks.length ? webhooks.map((w) => hookItem(w, again)) : h('li', { class: 'muted' }, T.none)),
      h('details', { class: 'section' }, h('summary', null, T.newOne), h('div', null, hookForm(null, again)))),
    card(T.deliveries,
      h('div', { class: 'row' }, h('button', { class: 'small', onclick: again }, T.refresh)),
      deliveries.length ? deliveryTable(deliveries, names) : h('p', { class: 'muted' }, T.noDeliveries)));
}

/** hookItem is one webhook of the list with its actions. */
function hookItem(w, again) {
  const result = h('div', { class: 'small', role: 'status', 'aria-live': 'polite' });
  return h('li', { dataset: { webhook: w.id } },
    h('div', { class: 'spread' }, h('strong', null, w.name), h('span', { class: 'row small' }, h('span', { class: 'pill' }, w.type),
      w.enabled ? h('span', { class: 'pill good' }, T.on) : h('span', { class: 'pill' }, T.off))),
    h('div', { class: 'small muted' }, w.url, ' · ', w.kinds.map((k) => T.kindNames[k] || k).join(', ')),
    h('div', { class: 'row', style: 'margin-top:6px' },
      h('button', {
        class: 'small test', onclick: async (e) => {
          result.className = 'small';
          result.textContent = '';
          const ok = await busy(e.currentTarget, call(`/api/admin/webhooks/${w.id}/test`, { method: 'POST' }), (err) => {
            result.className = 'small banner bad';
            result.textContent = T.testFailed + errText(err);
          });
          if (ok) { result.className = 'small banner good'; result.textContent = T.testOK; }
        },
      }, T.test),
      h('button', {
        class: 'small toggle', onclick: async (e) => {
          const body = { enabled: !w.enabled };
          if (await busy(e.currentTarget, call('/api/admin/webhooks/' + w.id, { method: 'PATCH', body }))) again();
        },
      }, w.enabled ? T.disable : T.enable),
      h('button', {
        class: 'small danger', onclick: async (e) => {
          if (!confirmDo(T.delAsk(w.name))) return;
          if (await busy(e.currentTarget, call('/api/admin/webhooks/' + w.id, { method: 'DELETE' }))) again();
        },
      }, T.del)),
    result,
    h('details', null, h('summary', { class: 'small' }, T.edit), hookForm(w, again)));
}

/** hookForm adds a webhook (w null) or edits w: an empty address or
 * secret keeps the stored one. */
function hookForm(w, again) {
  const name = h('input', { type: 'text', value: w ? w.name : '', maxlength: 100 });
  const type = select('type', T.types, w ? w.type : 'ntfy');
  const url = h('input', { type: 'url', autocapitalize: 'none', placeholder: w ? T.urlKeep(w.url) : 'https://…' });
  const secret = h('input', { type: 'text', autocapitalize: 'none', autocomplete: 'off', placeholder: w && w.hasSecret ? T.secretKeep : T.secretNone });
  const remove = w && w.hasSecret ? check('removeSecret', T.secretRemove, false) : null;
  const kinds = h('div', { class: 'two' }, KINDS.map((k) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', value: k, checked: w ? w.kinds.includes(k) : k !== 'photo.uploaded' }), T.kindNames[k])));
  const enabled = check('enabled', T.enabled, w ? w.enabled : true);
  const f = h('form', { novalidate: true },
    h('div', { class: 'two' }, field('name', T.name, name), field('type', T.type, type)),
    field('url', T.url, url), field('secret', T.secret, secret, T.secretHint), remove,
    h('div', { class: 'field', dataset: { field: 'kinds' } }, h('label', null, T.kinds), kinds, h('div', { class: 'err' })),
    enabled, h('button', { class: 'primary', type: 'submit' }, w ? T.save : T.add));
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(f, null);
    const body = { name: name.value.trim(), type: type.value, url: url.value.trim(), kinds: picked(kinds), enabled: enabled.querySelector('input').checked };
    if (secret.value) body.secret = secret.value;
    else if (remove && remove.querySelector('input').checked) body.secret = null;
    const res = await busy(f.querySelector('[type=submit]'),
      call('/api/admin/webhooks' + (w ? '/' + w.id : ''), { method: w ? 'PATCH' : 'POST', body }), (err) => showErrors(f, err));
    if (res) { toast(T.saved); again(); }
  });
  return f;
}

/** deliveryTable lists deliveries, newest first, with their status. */
function deliveryTable(deliveries, names) {
  const tone = { sent: 'good', failed: 'bad', pending: 'warn' };
  return h('div', { class: 'scroll-x' }, h('table', { class: 'deliveries' },
    h('thead', null, h('tr', null, T.cols.map((c) => h('th', null, c)))),
    h('tbody', null, deliveries.map((d) => h('tr', { dataset: { delivery: d.id, status: d.status } },
      h('td', null, fmtTime(d.createdAt)),
      h('td', null, names[d.webhookId] || T.gone),
      h('td', null, T.kindNames[d.kind] || d.kind),
      h('td', null, h('span', { class: 'pill ' + (tone[d.status] || '') }, T.status[d.status] || d.status)),
      h('td', null, d.attempts),
      h('td', { class: 'small' }, d.responseStatus ?? '', d.error ? ' ' + d.error : ''),
      h('td', { class: 'small' }, d.nextAttemptAt ? fmtTime(d.nextAttemptAt) : ''))))));
}
