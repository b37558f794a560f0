// @ts-check
// The guests' addresses of one event in the console (GET
// /api/admin/events/:id/contacts): the list with where each one's gallery
// mail is, the CSV export, and what ending the event queued and what of it
// has gone.
import { h, clear, fmtTime } from './lib.js';
import { call, errText, notYet, unavailable, copyText, busy } from './admin-ui.js';
import { t } from './admin-i18n.js';

/** endResult says what ending the event set in motion (its result). */
export function endResult(r) {
  return h('div', { class: 'banner good', id: 'end-result' },
    h('p', null, t('The event has ended.')),
    r.shareUrl ? h('p', null, t('Gallery link: '), h('a', { href: r.shareUrl, target: '_blank', rel: 'noopener' }, r.shareUrl), ' ',
      h('button', { class: 'small', onclick: () => copyText(r.shareUrl) }, t('Copy'))) : null,
    r.sharePassword ? h('p', null, t('Its password (the Share tab shows it again): '), h('strong', { class: 'mono' }, r.sharePassword)) : null,
    h('p', { class: 'small' }, [
      r.guestEmails ? t('{n, plural, one {# guest email queued.} other {# guest emails queued.}}', { n: r.guestEmails }) : t('No guest email queued.'),
      r.summaryQueued ? t('Summary queued.') : null,
      r.exportQueued ? t('Cloud export queued.') : null].filter(Boolean).join(' ')),
    (r.notes || []).map((n) => h('p', { class: 'small' }, n)));
}

/** contactsCard fills box with the addresses guests of event ev left. */
export async function contactsCard(ev, box, isOwner) {
  let data;
  try {
    data = await call(`/api/admin/events/${ev.id}/contacts`);
  } catch (e) {
    return clear(box, notYet(e) ? unavailable(t('Guest addresses')) : h('div', { class: 'banner bad' }, errText(e)));
  }
  const list = data.contacts || [];
  const m = data.mails || { pending: 0, sent: 0, failed: 0 };
  const mailed = m.pending + m.sent + m.failed;
  const state = { none: t('no mail'), pending: t('waiting'), sent: t('sent'), failed: t('failed') };
  const pill = { pending: 'pill', sent: 'pill good', failed: 'pill bad', none: 'pill' };
  clear(box,
    h('div', { class: 'spread' },
      h('h2', { style: 'margin-top:0' }, t('Guest addresses')),
      h('span', null,
        list.length ? h('a', { class: 'btn small', href: `/api/admin/events/${ev.id}/contacts?format=csv`, download: '' }, t('Export (CSV)')) : null, ' ',
        h('button', { class: 'small', onclick: (e) => busy(e.currentTarget, contactsCard(ev, box, isOwner)) }, t('Refresh')))),
    mailed ? h('p', { id: 'contact-mails' }, [t('Gallery mails: {sent} of {n} sent', { sent: m.sent, n: mailed }),
      m.pending ? t(', {n} waiting', { n: m.pending }) : '', m.failed ? t(', {n} failed', { n: m.failed }) : '', '.'].join(''), ' ',
      m.pending ? t('Waiting mails go out by themselves when the box is online. ') : null,
      isOwner && (m.pending || m.failed) ? h('a', { href: '/admin/settings/mail' }, t('See the mail queue')) : null) : null,
    list.length ? h('ul', { class: 'list', id: 'contacts' }, list.map((c) => h('li', { class: 'spread' },
      h('span', null, h('strong', null, c.email), c.name ? ' ' + c.name : null,
        h('div', { class: 'small muted' }, fmtTime(c.createdAt))),
      ev.endedAt ? h('span', { class: pill[c.mail] || 'pill' }, state[c.mail] || c.mail) : null)))
      : h('p', { class: 'muted' }, t('No guest has left an address.')));
}
