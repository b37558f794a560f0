// The guests' addresses of one event in the console (GET
// /api/admin/events/:id/contacts): the list with where each one's gallery
// mail is, the CSV export, and what ending the event queued and what of it
// has gone.
import { h, clear, fmtTime } from './lib.js';
import { call, errText, notYet, unavailable, copyText, busy } from './admin-ui.js';

// T holds every English string of this module, in one place for the
// console's translation.
const T = {
  title: 'Guest addresses',
  none: 'No guest has left an address.',
  csv: 'Export (CSV)', refresh: 'Refresh',
  state: { none: 'no mail', pending: 'waiting', sent: 'sent', failed: 'failed' },
  mails: (m, n) => `Gallery mails: ${m.sent} of ${n} sent` + (m.pending ? `, ${m.pending} waiting` : '') + (m.failed ? `, ${m.failed} failed` : '') + '.',
  waitingHint: 'Waiting mails go out by themselves when the box is online. ',
  mailScreen: 'See the mail queue',
  ended: 'The event has ended.',
  link: 'Gallery link: ', copy: 'Copy',
  password: 'Its password (shown once): ',
  queued: (r) => [
    r.guestEmails ? `${r.guestEmails} guest email${r.guestEmails === 1 ? '' : 's'} queued.` : 'No guest email queued.',
    r.summaryQueued ? 'Summary queued.' : null,
    r.exportQueued ? 'Cloud export queued.' : null].filter(Boolean).join(' '),
};

/** endResult says what ending the event set in motion (its result). */
export function endResult(r) {
  return h('div', { class: 'banner good', id: 'end-result' },
    h('p', null, T.ended),
    r.shareUrl ? h('p', null, T.link, h('a', { href: r.shareUrl, target: '_blank', rel: 'noopener' }, r.shareUrl), ' ',
      h('button', { class: 'small', onclick: () => copyText(r.shareUrl) }, T.copy)) : null,
    r.sharePassword ? h('p', null, T.password, h('strong', { class: 'mono' }, r.sharePassword)) : null,
    h('p', { class: 'small' }, T.queued(r)),
    (r.notes || []).map((n) => h('p', { class: 'small' }, n)));
}

/** contactsCard fills box with the addresses guests of event ev left. */
export async function contactsCard(ev, box, isOwner) {
  let data;
  try {
    data = await call(`/api/admin/events/${ev.id}/contacts`);
  } catch (e) {
    return clear(box, notYet(e) ? unavailable(T.title) : h('div', { class: 'banner bad' }, errText(e)));
  }
  const list = data.contacts || [];
  const m = data.mails || { pending: 0, sent: 0, failed: 0 };
  const mailed = m.pending + m.sent + m.failed;
  const pill = { pending: 'pill', sent: 'pill good', failed: 'pill bad', none: 'pill' };
  clear(box,
    h('div', { class: 'spread' },
      h('h2', { style: 'margin-top:0' }, T.title),
      h('span', null,
        list.length ? h('a', { class: 'btn small', href: `/api/admin/events/${ev.id}/contacts?format=csv`, download: '' }, T.csv) : null, ' ',
        h('button', { class: 'small', onclick: (e) => busy(e.currentTarget, contactsCard(ev, box, isOwner)) }, T.refresh))),
    mailed ? h('p', { id: 'contact-mails' }, T.mails(m, mailed), ' ',
      m.pending ? T.waitingHint : null,
      isOwner && (m.pending || m.failed) ? h('a', { href: '/admin/settings/mail' }, T.mailScreen) : null) : null,
    list.length ? h('ul', { class: 'list', id: 'contacts' }, list.map((c) => h('li', { class: 'spread' },
      h('span', null, h('strong', null, c.email), c.name ? ' ' + c.name : null,
        h('div', { class: 'small muted' }, fmtTime(c.createdAt))),
      ev.endedAt ? h('span', { class: pill[c.mail] || 'pill' }, T.state[c.mail] || c.mail) : null)))
      : h('p', { class: 'muted' }, T.none));
}
