// @ts-check
// The console's Webhooks screen (owners): the webhooks with their test,
// enable/disable, edit and delete, a form for a new one, and the recent
// deliveries with their status, in the console's language (t).
import { h, clear, toast, fmtTime } from './lib.js';
import { call, errText, field, check, select, showErrors, busy, confirmDo } from './admin-ui.js';
import { t } from './admin-i18n.js';

// KINDS are the notices a webhook can be sent on, in the order shown.
const KINDS = ['photo.uploaded', 'photo.pending', 'message.created', 'event.ended', 'export.finished', 'export.failed', 'backup.failed', 'storage.low', 'printer.attention'];

/** kindNames names the notices in the console's language. */
const kindNames = () => ({
  'photo.uploaded': t('New photos'),
  'photo.pending': t('Photos to moderate'),
  'message.created': t('Guestbook messages'),
  'event.ended': t('Event ended'),
  'export.finished': t('Cloud export finished'),
  'export.failed': t('Cloud export failed'),
  'backup.failed': t('Backup failed'),
  'storage.low': t('Storage running low'),
  'printer.attention': t('The printer needs a person'),
});

const card = (title, ...kids) => h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, title), kids);
const picked = (el) => [...el.querySelectorAll('input:checked')].map((i) => i.value);

/** webhooksPart fills box with the Webhooks screen. */
export async function webhooksPart(box) {
  const { webhooks, deliveries } = await call('/api/admin/webhooks');
  const again = () => webhooksPart(box).catch((e) => toast(errText(e), 'bad'));
  const names = Object.fromEntries(webhooks.map((w) => [w.id, w.name]));
  clear(box,
    card(t('Webhooks'), h('p', { class: 'muted small' }, t('A webhook sends a message to a phone (ntfy), a chat (Discord, Slack) or your own server (JSON) when something happens. While the box is offline, messages wait and go out when it is back online (for up to 48 hours). Photos and guestbook messages are grouped: at most one message every 10 minutes per event.')),
      h('ul', { class: 'list' }, webhooks.length ? webhooks.map((w) => hookItem(w, again)) : h('li', { class: 'muted' }, t('No webhook yet.'))),
      h('details', { class: 'section' }, h('summary', null, t('New webhook')), h('div', null, hookForm(null, again)))),
    card(t('Recent deliveries'),
      h('div', { class: 'row' }, h('button', { class: 'small', onclick: again }, t('Refresh'))),
      deliveries.length ? deliveryTable(deliveries, names) : h('p', { class: 'muted' }, t('None yet.'))));
}

/**
 * lostText says what of a webhook a restore from another box lost (its
 * reenter: a backup never carries the address or the secret), or null.
 */
function lostText(re) {
  if (re.includes('url') && re.includes('secret')) return t('Lost in the restore: its address and its signing secret. Type them again below and save; nothing is sent to it until then.');
  if (re.includes('url')) return t('Lost in the restore: its address. Type it again below and save; nothing is sent to it until then.');
  if (re.includes('secret')) return t('Lost in the restore: its signing secret. Type it again below and save, or remove it; nothing is sent to it until then.');
  return null;
}

/** hookItem is one webhook of the list with its actions. */
function hookItem(w, again) {
  const result = h('div', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const re = w.reenter || [];
  const form = hookForm(w, again);
  // What the restore lost, with its form open below and a way to its field.
  const lost = lostText(re) ? h('div', { class: 'banner lost', role: 'status' }, lostText(re), ' ',
    h('button', { type: 'button', class: 'linkish', onclick: () => form.querySelector(re.includes('url') ? 'input[name=url]' : 'input[name=secret]').focus() },
      re.length > 1 ? t('Type them again') : t('Type it again'))) : null;
  return h('li', { dataset: { webhook: w.id } },
    h('div', { class: 'spread' }, h('strong', null, w.name), h('span', { class: 'row small' }, h('span', { class: 'pill' }, w.type),
      w.enabled ? h('span', { class: 'pill good' }, t('on')) : h('span', { class: 'pill' }, t('off')))),
    h('div', { class: 'small muted' }, w.url ? [w.url, ' · '] : null, w.kinds.map((k) => kindNames()[k] || k).join(', ')),
    lost,
    h('div', { class: 'row', style: 'margin-top:6px' },
      h('button', {
        class: 'small test', onclick: async (e) => {
          result.className = 'small';
          result.textContent = '';
          const ok = await busy(e.currentTarget, call(`/api/admin/webhooks/${w.id}/test`, { method: 'POST' }), (err) => {
            result.className = 'small banner bad';
            result.textContent = errText(err);
          });
          if (ok) { result.className = 'small banner good'; result.textContent = t('The receiver took the test.'); }
        },
      }, t('Send a test')),
      h('button', {
        class: 'small toggle', onclick: async (e) => {
          const body = { enabled: !w.enabled };
          if (await busy(e.currentTarget, call('/api/admin/webhooks/' + w.id, { method: 'PATCH', body }))) again();
        },
      }, w.enabled ? t('Disable') : t('Enable')),
      h('button', {
        class: 'small danger', onclick: async (e) => {
          if (!confirmDo(t('Delete the webhook {name}? Its waiting messages are dropped.', { name: w.name }))) return;
          if (await busy(e.currentTarget, call('/api/admin/webhooks/' + w.id, { method: 'DELETE' }))) again();
        },
      }, t('Delete'))),
    result,
    h('details', { open: re.length > 0 }, h('summary', { class: 'small' }, t('Edit')), form));
}

/** hookForm adds a webhook (w null) or edits w: an empty address or
 * secret keeps the stored one. */
function hookForm(w, again) {
  const name = h('input', { type: 'text', value: w ? w.name : '', maxlength: 100 });
  const type = select('type', [['ntfy', 'ntfy'], ['discord', 'Discord'], ['slack', 'Slack'], ['json', 'JSON']], w ? w.type : 'ntfy');
  const re = (w && w.reenter) || [];
  const url = h('input', { type: 'url', autocapitalize: 'none', placeholder: w && !re.includes('url') ? t('Unchanged ({shown}…)', { shown: w.url }) : 'https://…' });
  const secret = h('input', { type: 'text', autocapitalize: 'none', autocomplete: 'off', placeholder: w && w.hasSecret ? t('Unchanged') : re.includes('secret') ? '' : t('Optional') });
  const remove = w && (w.hasSecret || re.includes('secret')) ? check('removeSecret', t('Remove the secret'), false) : null;
  const lostHint = t('Lost in the restore: type it again.');
  const kinds = h('div', { class: 'two' }, KINDS.map((k) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', value: k, checked: w ? w.kinds.includes(k) : k !== 'photo.uploaded' }), kindNames()[k])));
  const enabled = check('enabled', t('Enabled'), w ? w.enabled : true);
  const f = h('form', { novalidate: true },
    h('div', { class: 'two' }, field('name', t('Name'), name), field('type', t('Type'), type)),
    field('url', t('Address'), url, re.includes('url') ? lostHint : null),
    field('secret', t('Signing secret'), secret, [re.includes('secret') ? lostHint + ' ' : '', t('With a secret, each message carries X-Eventbox-Signature (HMAC-SHA256).')]), remove,
    h('div', { class: 'field', dataset: { field: 'kinds' } }, h('label', null, t('Send on')), kinds, h('div', { class: 'err' })),
    enabled, h('button', { class: 'primary', type: 'submit' }, w ? t('Save') : t('Add webhook')));
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(f, null);
    const body = { name: name.value.trim(), type: type.value, url: url.value.trim(), kinds: picked(kinds), enabled: enabled.querySelector('input').checked };
    if (secret.value) body.secret = secret.value;
    else if (remove && remove.querySelector('input').checked) body.secret = null;
    const res = await busy(f.querySelector('[type=submit]'),
      call('/api/admin/webhooks' + (w ? '/' + w.id : ''), { method: w ? 'PATCH' : 'POST', body }), (err) => showErrors(f, err));
    if (res) { toast(t('Saved')); again(); }
  });
  return f;
}

/** deliveryTable lists deliveries, newest first, with their status. */
function deliveryTable(deliveries, names) {
  const tone = { sent: 'good', failed: 'bad', pending: 'warn' };
  const status = { sent: t('sent'), pending: t('waiting'), failed: t('failed') };
  const kinds = kindNames();
  const cols = [t('When'), t('Webhook'), t('Kind'), t('Status'), t('Tries'), t('Answer'), t('Next try')];
  return h('div', { class: 'scroll-x' }, h('table', { class: 'deliveries' },
    h('thead', null, h('tr', null, cols.map((c) => h('th', null, c)))),
    h('tbody', null, deliveries.map((d) => h('tr', { dataset: { delivery: d.id, status: d.status } },
      h('td', null, fmtTime(d.createdAt)),
      h('td', null, names[d.webhookId] || t('deleted')),
      h('td', null, kinds[d.kind] || d.kind),
      h('td', null, h('span', { class: 'pill ' + (tone[d.status] || '') }, status[d.status] || d.status)),
      h('td', null, d.attempts),
      h('td', { class: 'small' }, d.responseStatus ?? '', d.error ? ' ' + d.error : ''),
      h('td', { class: 'small' }, d.nextAttemptAt ? fmtTime(d.nextAttemptAt) : ''))))));
}
