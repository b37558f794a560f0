// @ts-check
// Console pages for the box as a whole: two-step sign-in, the team
// (accounts and invitations), settings (mail, webhooks, backup, updates;
// cloud lives in admin-cloud.js), statistics and About. Owner-only parts are linked for owners only.
import { h, clear, toast, fmtTime, fmtBytes, guestLabel } from './lib.js';
import { call, errText, field, select, showErrors, busy, notYet, unavailable, confirmDo, copyText } from './admin-ui.js';
import { mailPart } from './admin-mail.js';
import { t } from './admin-i18n.js';

const card = (title, ...kids) => h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, title), kids);
const failed = (box, what, e) => clear(box, notYet(e) ? unavailable(what) : h('div', { class: 'banner bad' }, errText(e)));

/** qrImage shows the two-factor QR, whatever form the box sends it in. */
function qrImage(qr) {
  if (!qr) return null;
  if (qr.startsWith('data:') || qr.startsWith('/')) return h('img', { src: qr, alt: t('QR code for the authenticator app'), width: 200, height: 200 });
  if (qr.trim().startsWith('<svg')) return h('img', { src: URL.createObjectURL(new Blob([qr], { type: 'image/svg+xml' })), alt: t('QR code'), width: 200, height: 200 });
  return h('img', { src: 'data:image/png;base64,' + qr, alt: t('QR code for the authenticator app'), width: 200, height: 200 });
}

/** twoFactorCard fills box with the two-step sign-in settings. */
export async function twoFactorCard(ctx, box) {
  const st = await call('/api/admin/me/two-factor');
  const title = h('h2', { style: 'margin-top:0' }, t('Two-step sign-in'));
  const codes = (list) => h('div', { class: 'banner good' },
    h('p', null, t('Recovery codes, each usable once if you lose your phone. Keep them somewhere safe; they are shown only now:')),
    h('pre', { class: 'mono', id: 'recovery-codes' }, list.join('\n')),
    h('button', { class: 'small', onclick: () => copyText(list.join('\n')) }, t('Copy')));
  if (!st.enabled) {
    const start = h('button', { class: 'primary', id: 'tf-start' }, t('Turn on'));
    start.addEventListener('click', async () => {
      const res = await busy(start, call('/api/admin/me/two-factor', { method: 'POST', body: { action: 'start' } }));
      if (!res) return;
      const code = h('input', { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code' });
      const form = h('form', { novalidate: true, id: 'tf-confirm' },
        h('p', null, t('Scan this with an authenticator app, then type the code it shows.')),
        qrImage(res.qr), h('p', { class: 'small' }, t('Or enter the key: '), h('code', { id: 'tf-secret' }, res.secret)),
        field('code', t('Code'), code), h('button', { class: 'primary', type: 'submit' }, t('Confirm')));
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        showErrors(form, null);
        const ok = await busy(form.querySelector('[type=submit]'),
          call('/api/admin/me/two-factor', { method: 'POST', body: { action: 'confirm', code: code.value.trim() } }), (err) => showErrors(form, err));
        if (!ok) return;
        await twoFactorCard(ctx, box);
        box.append(codes(ok.recoveryCodes));
      });
      clear(box, title, form);
      code.focus();
    });
    return clear(box, title, h('p', { class: 'muted' }, t('Off. With it on, signing in also asks for a code from your phone.')), start);
  }
  const pw = h('input', { type: 'password', autocomplete: 'current-password' });
  const code = h('input', { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code' });
  const off = h('form', { novalidate: true }, field('password', t('Password'), pw), field('code', t('Code'), code),
    h('div', { class: 'row' },
      h('button', { type: 'submit', class: 'danger' }, t('Turn off')),
      h('button', { type: 'button', dataset: { act: 'recovery' } }, t('New recovery codes'))));
  off.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(off, null);
    const ok = await busy(off.querySelector('[type=submit]'),
      call('/api/admin/me/two-factor', { method: 'DELETE', body: { password: pw.value, code: code.value.trim() } }), (err) => showErrors(off, err));
    if (ok) { toast(t('Two-step sign-in is off')); twoFactorCard(ctx, box); }
  });
  off.querySelector('[data-act=recovery]').addEventListener('click', async (e) => {
    showErrors(off, null);
    const ok = await busy(e.currentTarget, call('/api/admin/me/two-factor', { method: 'POST', body: { action: 'recovery', code: code.value.trim() } }), (err) => showErrors(off, err));
    if (ok) box.append(codes(ok.recoveryCodes));
  });
  clear(box, title, h('p', null, h('span', { class: 'pill good' }, t('On')), ` ${st.recoveryCodesLeft} recovery codes left.`),
    h('p', { class: 'small muted' }, t('To turn it off or get new recovery codes, confirm with a current code.')), off);
}

/** teamPage lists accounts and invitations (owners). */
/** roleName is an account's role in the console's language. */
const roleName = (role) => ({ owner: t('Owner'), organizer: t('Organizer') }[role] || role);

export async function teamPage(ctx, view) {
  const accounts = h('div', null, h('p', { class: 'muted' }, t('Loading…')));
  const invites = h('div', null, h('p', { class: 'muted' }, t('Loading…')));
  view(t('Team'), card(t('Accounts'), accounts), card(t('Invitations'), invites));
  let events = [];
  try { ({ events } = await call('/api/admin/events')); } catch { /* the list below still works without names */ }
  drawAccounts(ctx, accounts, events);
  drawInvites(ctx, invites, events);
}

function eventPicker(events, chosen) {
  return h('div', { class: 'two' }, events.map((e) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', value: e.id, checked: (chosen || []).includes(e.id) }), e.name)));
}
const pickedIds = (el) => [...el.querySelectorAll('input:checked')].map((i) => i.value);

async function drawAccounts(ctx, box, events) {
  let accounts;
  try { ({ accounts } = await call('/api/admin/accounts')); } catch (e) { return failed(box, t('Accounts'), e); }
  const names = Object.fromEntries(events.map((e) => [e.id, e.name]));
  const shown = (pw, who) => h('div', { class: 'banner good' }, t('Password for {who} (shown once):', { who }) + ' ', h('strong', { class: 'mono' }, pw),
    ' ', h('button', { class: 'small', onclick: () => copyText(pw) }, t('Copy')));
  const patch = (a, body, msg) => async (e) => {
    if (msg && !confirmDo(msg)) return;
    const res = await busy(e.currentTarget, call('/api/admin/accounts/' + a.id, { method: 'PATCH', body }));
    if (!res) return;
    await drawAccounts(ctx, box, events);
    if (res.password) box.prepend(shown(res.password, a.username));
  };
  const username = h('input', { type: 'text', autocapitalize: 'none' });
  const role = select('role', [['organizer', t('Organizer: the events I pick')], ['owner', t('Owner: everything')]], 'organizer');
  const name = h('input', { type: 'text' });
  const email = h('input', { type: 'email' });
  const picks = eventPicker(events, []);
  const form = h('form', { novalidate: true },
    h('div', { class: 'two' }, field('username', t('Username'), username), field('role', t('Role'), role),
      field('name', t('Name'), name), field('email', t('Email'), email)),
    h('div', { class: 'field', dataset: { field: 'eventIds' } }, h('label', null, t('Events (organizers)')), picks, h('div', { class: 'err' })),
    h('p', { class: 'small muted' }, t('A password is made for the new account and shown once.')),
    h('button', { class: 'primary', type: 'submit' }, t('Create account')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const res = await busy(form.querySelector('[type=submit]'), call('/api/admin/accounts', {
      method: 'POST', body: { username: username.value.trim(), role: role.value, name: name.value.trim(), email: email.value.trim(), eventIds: pickedIds(picks) },
    }), (err) => showErrors(form, err));
    if (!res) return;
    await drawAccounts(ctx, box, events);
    if (res.password) box.prepend(shown(res.password, res.account.username));
  });
  clear(box, h('ul', { class: 'list' }, accounts.map((a) => {
    const editPicks = eventPicker(events, a.eventIds);
    return h('li', null,
      h('div', { class: 'spread' }, h('strong', null, a.name || a.username, a.id === ctx.me.id ? ' ' + t('(you)') : ''),
        h('span', { class: 'row small' }, h('span', { class: 'pill' }, roleName(a.role)), a.twoFactor ? h('span', { class: 'pill good' }, t('2-step sign-in')) : null)),
      h('div', { class: 'small muted' }, [a.username, a.email, a.lastLoginAt ? t('last sign-in {at}', { at: fmtTime(a.lastLoginAt) }) : t('never signed in')].filter(Boolean).join(' · ')),
      a.role === 'organizer' ? h('div', { class: 'small' }, t('Events: '), a.eventIds.map((id) => names[id] || id).join(', ') || t('none yet')) : null,
      a.id === ctx.me.id ? null : h('details', null, h('summary', { class: 'small' }, t('Manage')),
        a.role === 'organizer' ? h('div', null, editPicks, h('button', { class: 'small', onclick: (e) => patch(a, { eventIds: pickedIds(editPicks) })(e) }, t('Save events'))) : null,
        h('div', { class: 'row', style: 'margin-top:8px' },
          h('button', { class: 'small', onclick: patch(a, { role: a.role === 'owner' ? 'organizer' : 'owner' }, t(a.role === 'owner' ? 'Make {name} an organizer?' : 'Make {name} an owner?', { name: a.username })) }, a.role === 'owner' ? t('Make organizer') : t('Make owner')),
          h('button', { class: 'small', onclick: patch(a, { resetPassword: true }, `Give ${a.username} a new password?`) }, t('Reset password')),
          a.twoFactor ? h('button', { class: 'small', onclick: patch(a, { resetTwoFactor: true }, `Turn off two-step sign-in for ${a.username}?`) }, t('Reset 2-step')) : null,
          h('button', {
            class: 'small danger', onclick: async (e) => {
              if (!confirmDo(t('Delete the account {name}?', { name: a.username }))) return;
              if (await busy(e.currentTarget, call('/api/admin/accounts/' + a.id, { method: 'DELETE' }))) drawAccounts(ctx, box, events);
            },
          }, t('Delete')))));
  })), h('details', { class: 'section' }, h('summary', null, t('New account')), h('div', null, form)));
}

async function drawInvites(ctx, box, events) {
  let invitations;
  try { ({ invitations } = await call('/api/admin/invitations')); } catch (e) { return failed(box, t('Invitations'), e); }
  const email = h('input', { type: 'email' });
  const role = select('role', [['organizer', t('Organizer')], ['owner', t('Owner')]], 'organizer');
  const picks = eventPicker(events, []);
  const form = h('form', { novalidate: true },
    h('div', { class: 'two' }, field('email', t('Email'), email), field('role', t('Role'), role)),
    h('div', { class: 'field', dataset: { field: 'eventIds' } }, h('label', null, t('Events (organizers)')), picks, h('div', { class: 'err' })),
    h('button', { class: 'primary', type: 'submit' }, t('Invite')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const res = await busy(form.querySelector('[type=submit]'), call('/api/admin/invitations', {
      method: 'POST', body: { email: email.value.trim(), role: role.value, eventIds: pickedIds(picks) },
    }), (err) => showErrors(form, err));
    if (!res) return;
    await drawInvites(ctx, box, events);
    box.prepend(h('div', { class: 'banner good' },
      res.emailed ? t('Invitation emailed. ') : t('The box could not email it yet: send this link yourself. '),
      h('code', null, res.url), ' ', h('button', { class: 'small', onclick: () => copyText(res.url) }, t('Copy'))));
  });
  clear(box, h('ul', { class: 'list' }, invitations.length ? invitations.map((iv) => h('li', { class: 'spread' },
    h('span', null, h('strong', null, iv.email), ' ', h('span', { class: 'pill' }, roleName(iv.role)),
      h('div', { class: 'small muted' }, t('Expires ') + fmtTime(iv.expiresAt))),
    h('button', {
      class: 'small danger', onclick: async (e) => {
        if (await busy(e.currentTarget, call('/api/admin/invitations/' + iv.id, { method: 'DELETE' }))) drawInvites(ctx, box, events);
      },
    }, t('Withdraw')))) : h('li', { class: 'muted' }, t('No pending invitation.'))),
  h('details', { class: 'section' }, h('summary', null, t('Invite someone')), h('div', null, form)));
}

/** settingsTabs are the settings screens with their names in the console's language. */
const settingsTabs = () => [['mail', t('Mail')], ['webhooks', t('Webhooks')], ['cloud', t('Cloud')], ['printing', t('Printing')], ['network', t('Network')], ['backup', t('Backup')], ['updates', t('Updates')]];

/** settingsPage is /admin/settings/<part> (owners). */
export async function settingsPage(ctx, view, part) {
  const tabs = settingsTabs();
  const box = h('div', null, h('p', { class: 'muted' }, t('Loading…')));
  view(t('Settings'), h('nav', { class: 'tabs' }, tabs.map(([k, l]) => h('a', { href: '/admin/settings/' + k, 'aria-current': k === part ? 'page' : null }, l))), box);
  const draw = { mail: mailPart, webhooks: async (box) => (await import('./admin-webhooks.js')).webhooksPart(box), cloud: async (b) => (await import('./admin-cloud.js')).cloudPart(b),
    network: async (box) => (await import('./admin-network.js')).networkPart(box),
    printing: async (box) => (await import('./admin-printing.js')).printingPart(box),
    backup: (box) => import('./admin-backup.js').then((m) => m.backupPart(box)),
    updates: async (box) => (await import('./admin-updates.js')).updatesPart(box) }[part];
  if (!draw) return ctx.go('/admin/settings/mail', true);
  try {
    await draw(box);
  } catch (e) {
    failed(box, tabs.find(([k]) => k === part)[1], e);
  }
}

/** statsPage shows totals, an hourly chart with labelled axes, the places and the top guests. */
export async function statsPage(ctx, view) {
  const box = h('div', null, h('p', { class: 'muted' }, t('Loading…')));
  const { events } = await call('/api/admin/events');
  const pick = select('eventId', [['', t('Every event')], ...events.map((e) => [e.id, e.name])], new URLSearchParams(location.search).get('eventId') || '');
  pick.setAttribute('aria-label', t('Event'));
  view(t('Statistics'), h('div', { class: 'row', style: 'margin-bottom:8px' }, pick), box);
  const load = async () => {
    const q = pick.value ? '?eventId=' + encodeURIComponent(pick.value) : '';
    history.replaceState(null, '', '/admin/stats' + q);
    let s;
    let spots = [];
    try {
      s = await call('/api/admin/stats' + q);
      if (pick.value) ({ spots } = await call(`/api/admin/events/${encodeURIComponent(pick.value)}/spots`).catch(() => ({ spots: [] })));
    } catch (e) { return failed(box, t('Statistics'), e); }
    const tot = s.totals || {};
    const series = s.series || [];
    clear(box,
      h('div', { class: 'grid', style: 'grid-template-columns:repeat(auto-fill,minmax(130px,1fr))' },
        [[t('Photos'), Math.max(0, (tot.photos || 0) - (tot.videos || 0))], [t('Videos'), tot.videos], [t('Messages'), tot.messages], [t('Guests'), tot.guests], [t('Events'), tot.events], [t('Storage'), fmtBytes(tot.bytes)]]
          .map(([l, v]) => h('div', { class: 'card center' }, h('div', { style: 'font-size:1.6rem;font-weight:800' }, v ?? 0), h('div', { class: 'small muted' }, l)))),
      series.length ? card(t('Uploads per hour'), hourChart(series)) : null,
      spots.length ? card(t('Photos per place'), h('table', { id: 'stats-places' },
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, t('Place')), h('th', { scope: 'col' }, t('Photos')))),
        h('tbody', null, spots.slice().sort((a, b) => b.photos - a.photos).map((sp) => h('tr', null, h('td', null, sp.label), h('td', null, String(sp.photos))))))) : null,
      s.topGuests && s.topGuests.length ? card(t('Top guests'), h('ol', null, s.topGuests.map((g) => h('li', null, `${guestLabel(g.name, t('Photo booth')) || t('Unnamed')}: ${g.photos}`)))) : null);
  };
  pick.addEventListener('change', load);
  load();
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const k of kids) if (k) el.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return el;
}

/**
 * hourChart draws uploads per hour as bars on a time axis: the hours from
 * the first to the last of the series (gaps drawn as empty hours), the
 * time under the bars, the count on the left, both axes named. Each bar
 * tells its hour and counts to a screen reader and on hover.
 */
function hourChart(series) {
  const HOUR = 3600000;
  const last = Math.max(...series.map((x) => x.t));
  // At least twelve hours, so that one busy hour is a bar among others.
  const first = Math.min(last - 11 * HOUR, ...series.map((x) => x.t));
  const hours = Math.min(24 * 14, Math.round((last - first) / HOUR) + 1);
  const by = new Map(series.map((x) => [x.t, x]));
  const peak = Math.max(1, ...series.map((x) => x.photos + x.messages));
  // A round top for the count axis: 1, 2, 5, 10, 20, 50 …
  const step = [1, 2, 5].map((m) => m * 10 ** Math.floor(Math.log10(peak))).find((v) => v * 4 >= peak) || 10 ** Math.ceil(Math.log10(peak));
  const top = Math.ceil(peak / step) * step;
  const W = 720; const H = 240; const L = 46; const R = 10; const T = 12; const B = 52;
  const cw = (W - L - R) / hours;
  const y = (v) => T + (H - T - B) * (1 - v / top);
  const kids = [];
  for (let v = 0; v <= top; v += step) {
    kids.push(svg('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: '#d8d3cd', 'stroke-width': 1 }));
    kids.push(svg('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#5f5a55' }, String(v)));
  }
  const hourFmt = new Intl.DateTimeFormat(document.documentElement.lang || undefined, { hour: '2-digit', minute: '2-digit' });
  const dayFmt = new Intl.DateTimeFormat(document.documentElement.lang || undefined, { day: 'numeric', month: 'short' });
  const every = Math.max(1, Math.ceil(hours / 12));
  let lastDay = '';
  for (let i = 0; i < hours; i++) {
    const at = first + i * HOUR;
    const x = by.get(at) || { photos: 0, messages: 0 };
    const n = x.photos + x.messages;
    const when = new Date(at);
    if (n > 0) {
      kids.push(svg('rect', { x: L + i * cw + cw * 0.12, y: y(n), width: Math.max(1, cw * 0.76), height: y(0) - y(n), rx: 2, class: 'bar' },
        svg('title', null, `${dayFmt.format(when)} ${hourFmt.format(when)}: ${t('{p, plural, one {# photo} other {# photos}}, {m, plural, one {# message} other {# messages}}', { p: x.photos, m: x.messages })}`)));
    }
    if (i % every === 0) {
      const cx = L + i * cw + cw / 2;
      kids.push(svg('text', { x: cx, y: H - B + 16, 'text-anchor': 'middle', 'font-size': 11, fill: '#5f5a55' }, hourFmt.format(when)));
      const day = dayFmt.format(when);
      if (day !== lastDay) {
        kids.push(svg('text', { x: cx, y: H - B + 30, 'text-anchor': 'middle', 'font-size': 11, fill: '#5f5a55' }, day));
        lastDay = day;
      }
    }
  }
  kids.push(svg('line', { x1: L, x2: W - R, y1: y(0), y2: y(0), stroke: '#5f5a55', 'stroke-width': 1 }));
  kids.push(svg('line', { x1: L, x2: L, y1: T, y2: y(0), stroke: '#5f5a55', 'stroke-width': 1 }));
  kids.push(svg('text', { x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle', 'font-size': 12, fill: '#1d1b19' }, t('Time (hour of upload)')));
  kids.push(svg('text', { x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle', 'font-size': 12, fill: '#1d1b19', transform: `rotate(-90 12 ${(T + H - B) / 2})` }, t('Photos and messages')));
  return h('div', { class: 'scroll-x', tabindex: 0, role: 'region', 'aria-label': t('Uploads per hour') }, svg('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', role: 'img', 'aria-label': t('Uploads per hour'), id: 'stats-chart', class: 'stats-chart' }, ...kids));
}

/** aboutPage shows the running version, eventbox's licence and what the
 * binary carries from others (THIRD_PARTY_NOTICES.md), for every account. */
export async function aboutPage(ctx, view) {
  const about = await call('/api/admin/about');
  const text = (id, label, body) => h('pre', { class: 'notice-text', id, tabindex: 0, role: 'region', 'aria-label': label }, body);
  view(t('About eventbox'),
    h('div', { class: 'card', id: 'about-version' },
      h('h2', { style: 'margin-top:0' }, t('Version')),
      h('p', null, t('This box runs eventbox {version}.', { version: about.version }))),
    h('div', { class: 'card', id: 'about-licence' },
      h('h2', { style: 'margin-top:0' }, t('Licence')),
      h('p', null, t('eventbox is free software under the {licence}: you may use, change and share it under its terms.', { licence: 'Apache License 2.0 (' + about.license + ')' })),
      h('details', null, h('summary', null, t('The licence text')), text('licence-text', t('The licence text'), about.licenseText))),
    h('div', { class: 'card', id: 'about-notice' },
      h('h2', { style: 'margin-top:0' }, t('What the box carries from others')),
      h('p', null, t('The HEIC photo decoder (libheif and libde265, under the LGPL), the fonts and the Go libraries are each under their own licence. The notice below lists them, says where their source is, and holds their licence texts.')),
      h('div', { class: 'notice-md', id: 'notice', tabindex: 0, role: 'region', 'aria-label': t('Third-party notice') }, markdown(about.notice))));
}

/** inline renders a line's `code`, **bold** and [links](url) as elements. */
function inline(text) {
  const out = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\((https?:[^)\s]+)\)|(https?:\/\/[^\s)|]+[^\s)|.,;:])/g;
  let at = 0;
  for (let m; (m = re.exec(text));) {
    out.push(text.slice(at, m.index));
    if (m[1]) out.push(h('code', null, m[1]));
    else if (m[2]) out.push(h('strong', null, m[2]));
    else if (m[3]) out.push(h('a', { href: m[4], target: '_blank', rel: 'noopener' }, m[3]));
    else out.push(h('a', { href: m[5], target: '_blank', rel: 'noopener' }, m[5]));
    at = re.lastIndex;
  }
  out.push(text.slice(at));
  return out;
}

/** markdown renders the notice's Markdown (headings, paragraphs, lists,
 * tables, fenced blocks) as elements, never as HTML: the licence texts in
 * its fenced blocks stay as their authors wrote them. */
function markdown(md) {
  const out = [];
  const lines = String(md || '').split('\n');
  for (let i = 0; i < lines.length;) {
    const line = lines[i];
    if (line.startsWith('```')) {
      const body = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) body.push(lines[i]);
      i++;
      out.push(h('pre', { class: 'notice-text' }, body.join('\n')));
    } else if (/^#{1,6} /.test(line)) {
      const level = Math.min(line.indexOf(' ') + 1, 5);
      out.push(h('h' + level, null, inline(line.replace(/^#+ /, ''))));
      i++;
    } else if (line.startsWith('|')) {
      const rows = [];
      for (; i < lines.length && lines[i].startsWith('|'); i++) {
        if (!/^\|[\s|:-]+\|$/.test(lines[i])) rows.push(lines[i].slice(1, -1).split('|').map((c) => c.trim()));
      }
      out.push(h('div', { class: 'scroll-x' }, h('table', { class: 'notice-table' },
        h('thead', null, h('tr', null, rows[0].map((c) => h('th', null, inline(c))))),
        h('tbody', null, rows.slice(1).map((r) => h('tr', null, r.map((c) => h('td', null, inline(c)))))))));
    } else if (/^\s*[-*] /.test(line)) {
      const items = [];
      for (; i < lines.length && (/^\s*[-*] /.test(lines[i]) || (/^\s+\S/.test(lines[i]) && items.length)); i++) {
        if (/^\s*[-*] /.test(lines[i])) items.push(lines[i].replace(/^\s*[-*] /, ''));
        else items[items.length - 1] += ' ' + lines[i].trim();
      }
      out.push(h('ul', null, items.map((it) => h('li', null, inline(it)))));
    } else if (!line.trim()) {
      i++;
    } else {
      const para = [];
      for (; i < lines.length && lines[i].trim() && !/^(#{1,6} |```|\||\s*[-*] )/.test(lines[i]); i++) para.push(lines[i].trim());
      out.push(h('p', null, inline(para.join(' '))));
    }
  }
  return out;
}
