// Console pages for the box as a whole: two-step sign-in, the team
// (accounts and invitations), settings (mail, webhooks, backup, updates;
// cloud lives in admin-cloud.js) and statistics. Owner-only parts are linked for owners only.
import { h, clear, toast, fmtTime, fmtBytes } from './lib.js';
import { call, errText, field, check, select, showErrors, busy, notYet, unavailable, confirmDo, copyText } from './admin-ui.js';
import { mailPart } from './admin-mail.js';

const card = (title, ...kids) => h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, title), kids);
const failed = (box, what, e) => clear(box, notYet(e) ? unavailable(what) : h('div', { class: 'banner bad' }, errText(e)));

/** qrImage shows the two-factor QR, whatever form the box sends it in. */
function qrImage(qr) {
  if (!qr) return null;
  if (qr.startsWith('data:') || qr.startsWith('/')) return h('img', { src: qr, alt: 'QR code for the authenticator app', width: 200, height: 200 });
  if (qr.trim().startsWith('<svg')) return h('img', { src: URL.createObjectURL(new Blob([qr], { type: 'image/svg+xml' })), alt: 'QR code', width: 200, height: 200 });
  return h('img', { src: 'data:image/png;base64,' + qr, alt: 'QR code for the authenticator app', width: 200, height: 200 });
}

/** twoFactorCard fills box with the two-step sign-in settings. */
export async function twoFactorCard(ctx, box) {
  const st = await call('/api/admin/me/two-factor');
  const title = h('h2', { style: 'margin-top:0' }, 'Two-step sign-in');
  const codes = (list) => h('div', { class: 'banner good' },
    h('p', null, 'Recovery codes, each usable once if you lose your phone. Keep them somewhere safe; they are shown only now:'),
    h('pre', { class: 'mono', id: 'recovery-codes' }, list.join('\n')),
    h('button', { class: 'small', onclick: () => copyText(list.join('\n')) }, 'Copy'));
  if (!st.enabled) {
    const start = h('button', { class: 'primary', id: 'tf-start' }, 'Turn on');
    start.addEventListener('click', async () => {
      const res = await busy(start, call('/api/admin/me/two-factor', { method: 'POST', body: { action: 'start' } }));
      if (!res) return;
      const code = h('input', { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code' });
      const form = h('form', { novalidate: true, id: 'tf-confirm' },
        h('p', null, 'Scan this with an authenticator app, then type the code it shows.'),
        qrImage(res.qr), h('p', { class: 'small' }, 'Or enter the key: ', h('code', { id: 'tf-secret' }, res.secret)),
        field('code', 'Code', code), h('button', { class: 'primary', type: 'submit' }, 'Confirm'));
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
    return clear(box, title, h('p', { class: 'muted' }, 'Off. With it on, signing in also asks for a code from your phone.'), start);
  }
  const pw = h('input', { type: 'password', autocomplete: 'current-password' });
  const code = h('input', { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code' });
  const off = h('form', { novalidate: true }, field('password', 'Password', pw), field('code', 'Code', code),
    h('div', { class: 'row' },
      h('button', { type: 'submit', class: 'danger' }, 'Turn off'),
      h('button', { type: 'button', dataset: { act: 'recovery' } }, 'New recovery codes')));
  off.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(off, null);
    const ok = await busy(off.querySelector('[type=submit]'),
      call('/api/admin/me/two-factor', { method: 'DELETE', body: { password: pw.value, code: code.value.trim() } }), (err) => showErrors(off, err));
    if (ok) { toast('Two-step sign-in is off'); twoFactorCard(ctx, box); }
  });
  off.querySelector('[data-act=recovery]').addEventListener('click', async (e) => {
    showErrors(off, null);
    const ok = await busy(e.currentTarget, call('/api/admin/me/two-factor', { method: 'POST', body: { action: 'recovery', code: code.value.trim() } }), (err) => showErrors(off, err));
    if (ok) box.append(codes(ok.recoveryCodes));
  });
  clear(box, title, h('p', null, h('span', { class: 'pill good' }, 'On'), ` ${st.recoveryCodesLeft} recovery codes left.`),
    h('p', { class: 'small muted' }, 'To turn it off or get new recovery codes, confirm with a current code.'), off);
}

/** teamPage lists accounts and invitations (owners). */
export async function teamPage(ctx, view) {
  const accounts = h('div', null, h('p', { class: 'muted' }, 'Loading…'));
  const invites = h('div', null, h('p', { class: 'muted' }, 'Loading…'));
  view('Team', card('Accounts', accounts), card('Invitations', invites));
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
  try { ({ accounts } = await call('/api/admin/accounts')); } catch (e) { return failed(box, 'Accounts', e); }
  const names = Object.fromEntries(events.map((e) => [e.id, e.name]));
  const shown = (pw, who) => h('div', { class: 'banner good' }, `Password for ${who} (shown once): `, h('strong', { class: 'mono' }, pw),
    ' ', h('button', { class: 'small', onclick: () => copyText(pw) }, 'Copy'));
  const patch = (a, body, msg) => async (e) => {
    if (msg && !confirmDo(msg)) return;
    const res = await busy(e.currentTarget, call('/api/admin/accounts/' + a.id, { method: 'PATCH', body }));
    if (!res) return;
    await drawAccounts(ctx, box, events);
    if (res.password) box.prepend(shown(res.password, a.username));
  };
  const username = h('input', { type: 'text', autocapitalize: 'none' });
  const role = select('role', [['organizer', 'Organizer: the events I pick'], ['owner', 'Owner: everything']], 'organizer');
  const name = h('input', { type: 'text' });
  const email = h('input', { type: 'email' });
  const picks = eventPicker(events, []);
  const form = h('form', { novalidate: true },
    h('div', { class: 'two' }, field('username', 'Username', username), field('role', 'Role', role),
      field('name', 'Name', name), field('email', 'Email', email)),
    h('div', { class: 'field', dataset: { field: 'eventIds' } }, h('label', null, 'Events (organizers)'), picks, h('div', { class: 'err' })),
    h('p', { class: 'small muted' }, 'A password is made for the new account and shown once.'),
    h('button', { class: 'primary', type: 'submit' }, 'Create account'));
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
      h('div', { class: 'spread' }, h('strong', null, a.name || a.username, a.id === ctx.me.id ? ' (you)' : ''),
        h('span', { class: 'row small' }, h('span', { class: 'pill' }, a.role), a.twoFactor ? h('span', { class: 'pill good' }, '2-step') : null)),
      h('div', { class: 'small muted' }, [a.username, a.email, a.lastLoginAt ? 'last sign-in ' + fmtTime(a.lastLoginAt) : 'never signed in'].filter(Boolean).join(' · ')),
      a.role === 'organizer' ? h('div', { class: 'small' }, 'Events: ', a.eventIds.map((id) => names[id] || id).join(', ') || 'none') : null,
      a.id === ctx.me.id ? null : h('details', null, h('summary', { class: 'small' }, 'Manage'),
        a.role === 'organizer' ? h('div', null, editPicks, h('button', { class: 'small', onclick: (e) => patch(a, { eventIds: pickedIds(editPicks) })(e) }, 'Save events')) : null,
        h('div', { class: 'row', style: 'margin-top:8px' },
          h('button', { class: 'small', onclick: patch(a, { role: a.role === 'owner' ? 'organizer' : 'owner' }, `Make ${a.username} ${a.role === 'owner' ? 'an organizer' : 'an owner'}?`) }, a.role === 'owner' ? 'Make organizer' : 'Make owner'),
          h('button', { class: 'small', onclick: patch(a, { resetPassword: true }, `Give ${a.username} a new password?`) }, 'Reset password'),
          a.twoFactor ? h('button', { class: 'small', onclick: patch(a, { resetTwoFactor: true }, `Turn off two-step sign-in for ${a.username}?`) }, 'Reset 2-step') : null,
          h('button', {
            class: 'small danger', onclick: async (e) => {
              if (!confirmDo(`Delete the account ${a.username}?`)) return;
              if (await busy(e.currentTarget, call('/api/admin/accounts/' + a.id, { method: 'DELETE' }))) drawAccounts(ctx, box, events);
            },
          }, 'Delete'))));
  })), h('details', { class: 'section' }, h('summary', null, 'New account'), h('div', null, form)));
}

async function drawInvites(ctx, box, events) {
  let invitations;
  try { ({ invitations } = await call('/api/admin/invitations')); } catch (e) { return failed(box, 'Invitations', e); }
  const email = h('input', { type: 'email' });
  const role = select('role', [['organizer', 'Organizer'], ['owner', 'Owner']], 'organizer');
  const picks = eventPicker(events, []);
  const form = h('form', { novalidate: true },
    h('div', { class: 'two' }, field('email', 'Email', email), field('role', 'Role', role)),
    h('div', { class: 'field', dataset: { field: 'eventIds' } }, h('label', null, 'Events (organizers)'), picks, h('div', { class: 'err' })),
    h('button', { class: 'primary', type: 'submit' }, 'Invite'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const res = await busy(form.querySelector('[type=submit]'), call('/api/admin/invitations', {
      method: 'POST', body: { email: email.value.trim(), role: role.value, eventIds: pickedIds(picks) },
    }), (err) => showErrors(form, err));
    if (!res) return;
    await drawInvites(ctx, box, events);
    box.prepend(h('div', { class: 'banner good' },
      res.emailed ? 'Invitation emailed. ' : 'The box could not email it yet: send this link yourself. ',
      h('code', null, res.url), ' ', h('button', { class: 'small', onclick: () => copyText(res.url) }, 'Copy')));
  });
  clear(box, h('ul', { class: 'list' }, invitations.length ? invitations.map((iv) => h('li', { class: 'spread' },
    h('span', null, h('strong', null, iv.email), ' ', h('span', { class: 'pill' }, iv.role),
      h('div', { class: 'small muted' }, 'Expires ' + fmtTime(iv.expiresAt))),
    h('button', {
      class: 'small danger', onclick: async (e) => {
        if (await busy(e.currentTarget, call('/api/admin/invitations/' + iv.id, { method: 'DELETE' }))) drawInvites(ctx, box, events);
      },
    }, 'Withdraw'))) : h('li', { class: 'muted' }, 'No pending invitation.')),
  h('details', { class: 'section' }, h('summary', null, 'Invite someone'), h('div', null, form)));
}

const SETTINGS = [['mail', 'Mail'], ['webhooks', 'Webhooks'], ['cloud', 'Cloud'], ['backup', 'Backup'], ['updates', 'Updates']];

/** settingsPage is /admin/settings/<part> (owners). */
export async function settingsPage(ctx, view, part) {
  const box = h('div', null, h('p', { class: 'muted' }, 'Loading…'));
  view('Settings', h('nav', { class: 'tabs' }, SETTINGS.map(([k, l]) => h('a', { href: '/admin/settings/' + k, 'aria-current': k === part ? 'page' : null }, l))), box);
  const draw = { mail: mailPart, webhooks: async (box) => (await import('./admin-webhooks.js')).webhooksPart(box), cloud: async (b) => (await import('./admin-cloud.js')).cloudPart(b),
    backup: (box) => import('./admin-backup.js').then((m) => m.backupPart(box)),
    updates: async (box) => (await import('./admin-updates.js')).updatesPart(box) }[part];
  if (!draw) return ctx.go('/admin/settings/mail', true);
  try {
    await draw(box);
  } catch (e) {
    failed(box, SETTINGS.find(([k]) => k === part)[1], e);
  }
}


  const draw = { mail: mailPart, webhooks: async (box) => (await import('./admin-webhooks.js')).webhooksPart(box), cloud: async (b) => (await import('./admin-cloud.js')).cloudPart(b),
    backup: (box) => import('./admin-backup.js').then((m) => m.backupPart(box)),
    updates: async (box) => (await import('./admin-updates.js')).updatesPart(box) }[part];
}

/** statsPage shows totals, an hourly chart and the top guests. */
export async function statsPage(ctx, view) {
  const box = h('div', null, h('p', { class: 'muted' }, 'Loading…'));
  const { events } = await call('/api/admin/events');
  const pick = select('eventId', [['', 'Every event'], ...events.map((e) => [e.id, e.name])], new URLSearchParams(location.search).get('eventId') || '');
  view('Statistics', h('div', { class: 'row', style: 'margin-bottom:8px' }, pick), box);
  const load = async () => {
    const q = pick.value ? '?eventId=' + encodeURIComponent(pick.value) : '';
    history.replaceState(null, '', '/admin/stats' + q);
    let s;
    try { s = await call('/api/admin/stats' + q); } catch (e) { return failed(box, 'Statistics', e); }
    const t = s.totals || {};
    const series = s.series || [];
    const peak = Math.max(1, ...series.map((x) => x.photos + x.messages));
    clear(box,
      h('div', { class: 'grid', style: 'grid-template-columns:repeat(auto-fill,minmax(130px,1fr))' },
        [['Photos', t.photos], ['Videos', t.videos], ['Messages', t.messages], ['Guests', t.guests], ['Events', t.events], ['Storage', fmtBytes(t.bytes)]]
          .map(([l, v]) => h('div', { class: 'card center' }, h('div', { style: 'font-size:1.6rem;font-weight:800' }, v ?? 0), h('div', { class: 'small muted' }, l)))),
      series.length ? card('Uploads per hour',
        h('div', { style: 'display:flex;align-items:flex-end;gap:2px;height:140px;overflow-x:auto' }, series.map((x) => h('div', {
          title: `${fmtTime(x.t)}: ${x.photos} photos, ${x.messages} messages`,
          style: `flex:1 0 6px;background:var(--accent);height:${Math.round(100 * (x.photos + x.messages) / peak)}%;border-radius:2px 2px 0 0`,
        })))) : null,
      s.topGuests && s.topGuests.length ? card('Top guests', h('ol', null, s.topGuests.map((g) => h('li', null, `${g.name || 'Unnamed'}: ${g.photos}`)))) : null);
  };
  pick.addEventListener('change', load);
  load();
}
