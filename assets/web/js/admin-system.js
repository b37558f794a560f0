// Console pages for the box as a whole: two-step sign-in, the team
// (accounts and invitations), settings (mail, webhooks, cloud, backup,
// updates) and statistics. Owner-only parts are linked for owners only.
import { h, clear, toast, fmtTime, fmtBytes } from './lib.js';
import { call, errText, field, check, select, showErrors, busy, notYet, unavailable, confirmDo, copyText } from './admin-ui.js';

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
  const draw = { mail: mailPart, webhooks: webhooksPart, cloud: cloudPart, backup: (box) => import('./admin-backup.js').then((m) => m.backupPart(box)), updates: updatesPart }[part];
  if (!draw) return ctx.go('/admin/settings/mail', true);
  try {
    await draw(box);
  } catch (e) {
    failed(box, SETTINGS.find(([k]) => k === part)[1], e);
  }
}

async function mailPart(box) {
  const s = await call('/api/admin/mail');
  const smtp = s.smtp || {};
  const inp = (name, v, type = 'text') => h('input', { type, name, value: v ?? '', autocapitalize: 'none' });
  const host = inp('host', smtp.host);
  const port = inp('port', smtp.port || '', 'number');
  const user = inp('username', smtp.username);
  const pass = h('input', { type: 'password', autocomplete: 'new-password', placeholder: smtp.hasPassword ? 'Unchanged' : '' });
  const from = inp('from', smtp.from);
  const sec = select('security', [['starttls', 'STARTTLS'], ['tls', 'TLS'], ['none', 'None']], smtp.security || 'starttls');
  const admin = inp('adminEmail', s.adminEmail, 'email');
  const alerts = s.alerts || {};
  const al = [['storageLow', 'Storage is running low'], ['exportFailed', 'A cloud export failed'], ['backupFailed', 'A backup failed']]
    .map(([k, l]) => check(k, l, alerts[k]));
  const form = h('form', { novalidate: true },
    h('div', { class: 'two' },
      field('smtp', 'SMTP server', host), field('port', 'Port', port),
      field('username', 'Username', user), field('password', 'Password', pass),
      field('from', 'From address', from), field('security', 'Security', sec)),
    field('adminEmail', 'Admin email', admin, 'Summaries and alerts go here.'),
    h('div', { class: 'field', dataset: { field: 'alerts' } }, h('label', null, 'Alert me when'), al, h('div', { class: 'err' })),
    h('button', { class: 'primary', type: 'submit' }, 'Save'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const body = {
      smtp: { host: host.value.trim(), port: Number(port.value) || 0, username: user.value.trim(), from: from.value.trim(), security: sec.value },
      adminEmail: admin.value.trim(),
      alerts: Object.fromEntries(al.map((c) => { const i = c.querySelector('input'); return [i.name, i.checked]; })),
    };
    if (pass.value) body.smtp.password = pass.value;
    if (await busy(form.querySelector('[type=submit]'), call('/api/admin/mail', { method: 'PUT', body }), (err) => showErrors(form, err))) toast('Saved');
  });
  const to = h('input', { type: 'email', placeholder: s.adminEmail || 'you@example.com' });
  const q = s.queue || { pending: 0, failed: 0, items: [] };
  clear(box, card('Outgoing mail', form),
    card('Test and queue',
      h('div', { class: 'row' }, h('div', { class: 'grow' }, to),
        h('button', {
          onclick: async (e) => {
            const res = await busy(e.currentTarget, call('/api/admin/mail/test', { method: 'POST', body: to.value ? { to: to.value.trim() } : {} }));
            if (res) toast('Test mail sent to ' + res.to);
          },
        }, 'Send a test')),
      h('p', null, `${q.pending} waiting, ${q.failed} failed.`),
      q.failed ? h('button', {
        onclick: async (e) => {
          const res = await busy(e.currentTarget, call('/api/admin/mail/retry', { method: 'POST' }));
          if (res) { toast(`${res.requeued} requeued, ${res.sent} sent, ${res.failed} failed`); mailPart(box); }
        },
      }, 'Retry failed mail') : null));
}

const KINDS = ['photo.uploaded', 'photo.pending', 'message.created', 'event.ended', 'export.finished', 'export.failed', 'backup.failed', 'storage.low'];

async function webhooksPart(box) {
  const { webhooks, deliveries } = await call('/api/admin/webhooks');
  const form = (w) => {
    const name = h('input', { type: 'text', value: w ? w.name : '' });
    const type = select('type', [['ntfy', 'ntfy'], ['discord', 'Discord'], ['slack', 'Slack'], ['json', 'JSON']], w ? w.type : 'ntfy');
    const url = h('input', { type: 'url', placeholder: w ? 'Unchanged (' + w.url + ')' : 'https://…' });
    const secret = h('input', { type: 'text', autocapitalize: 'none', placeholder: w && w.hasSecret ? 'Unchanged' : 'Optional' });
    const kinds = h('div', { class: 'two' }, KINDS.map((k) => h('label', { class: 'check' }, h('input', { type: 'checkbox', value: k, checked: w ? w.kinds.includes(k) : k !== 'photo.uploaded' }), k)));
    const enabled = check('enabled', 'Enabled', w ? w.enabled : true);
    const f = h('form', { novalidate: true },
      h('div', { class: 'two' }, field('name', 'Name', name), field('type', 'Type', type)),
      field('url', 'Address', url), field('secret', 'Signing secret', secret),
      h('div', { class: 'field', dataset: { field: 'kinds' } }, h('label', null, 'Send on'), kinds, h('div', { class: 'err' })),
      enabled, h('button', { class: 'primary', type: 'submit' }, w ? 'Save' : 'Add webhook'));
    f.addEventListener('submit', async (e) => {
      e.preventDefault();
      showErrors(f, null);
      const body = { name: name.value.trim(), type: type.value, url: url.value.trim(), kinds: pickedIds(kinds), enabled: enabled.querySelector('input').checked };
      if (secret.value) body.secret = secret.value;
      const res = await busy(f.querySelector('[type=submit]'),
        call('/api/admin/webhooks' + (w ? '/' + w.id : ''), { method: w ? 'PATCH' : 'POST', body }), (err) => showErrors(f, err));
      if (res) { toast('Saved'); webhooksPart(box); }
    });
    return f;
  };
  clear(box,
    card('Webhooks', h('ul', { class: 'list' }, webhooks.length ? webhooks.map((w) => h('li', null,
      h('div', { class: 'spread' }, h('strong', null, w.name), h('span', { class: 'row small' }, h('span', { class: 'pill' }, w.type),
        w.enabled ? h('span', { class: 'pill good' }, 'on') : h('span', { class: 'pill' }, 'off'))),
      h('div', { class: 'small muted' }, w.url, ' · ', w.kinds.join(', ')),
      h('div', { class: 'row', style: 'margin-top:6px' },
        h('button', {
          class: 'small', onclick: async (e) => {
            const res = await busy(e.currentTarget, call(`/api/admin/webhooks/${w.id}/test`, { method: 'POST' }));
            if (res) toast('Test delivered');
          },
        }, 'Send a test'),
        h('button', {
          class: 'small danger', onclick: async (e) => {
            if (!confirmDo(`Delete the webhook ${w.name}?`)) return;
            if (await busy(e.currentTarget, call('/api/admin/webhooks/' + w.id, { method: 'DELETE' }))) webhooksPart(box);
          },
        }, 'Delete')),
      h('details', null, h('summary', { class: 'small' }, 'Edit'), form(w)))) : h('li', { class: 'muted' }, 'No webhook.')),
    h('details', { class: 'section' }, h('summary', null, 'New webhook'), h('div', null, form(null)))),
    card('Recent deliveries', deliveries.length ? h('div', { class: 'scroll-x' }, h('table', null,
      h('thead', null, h('tr', null, ['When', 'Kind', 'Status', 'Tries', 'Answer'].map((t) => h('th', null, t)))),
      h('tbody', null, deliveries.map((d) => h('tr', null,
        h('td', null, fmtTime(d.createdAt)), h('td', null, d.kind),
        h('td', null, h('span', { class: 'pill ' + ({ sent: 'good', failed: 'bad', pending: 'warn' }[d.status] || '') }, d.status)),
        h('td', null, d.attempts), h('td', { class: 'small' }, d.responseStatus || '', d.error ? ' ' + d.error : '')))))) : h('p', { class: 'muted' }, 'None yet.')));
}

async function cloudPart(box) {
  const s = await call('/api/admin/cloud');
  const url = h('input', { type: 'url', value: s.url || '', placeholder: 'https://cloud.example.com/remote.php/dav/files/me/' });
  const user = h('input', { type: 'text', value: s.user || '', autocapitalize: 'none' });
  const pass = h('input', { type: 'password', autocomplete: 'new-password', placeholder: s.url ? 'Unchanged' : '' });
  const folder = h('input', { type: 'text', value: s.folder || '', placeholder: 'eventbox' });
  const auto = check('autoExport', 'Export each event automatically when it ends', s.autoExport);
  const body = () => {
    const b = { url: url.value.trim(), user: user.value.trim(), folder: folder.value.trim(), autoExport: auto.querySelector('input').checked };
    if (pass.value) b.password = pass.value;
    return b;
  };
  const form = h('form', { novalidate: true },
    field('url', 'WebDAV address', url), h('div', { class: 'two' }, field('user', 'User', user), field('password', 'Password', pass)),
    field('folder', 'Folder', folder), auto,
    h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit' }, 'Save'),
      h('button', {
        type: 'button', onclick: async (e) => {
          showErrors(form, null);
          const res = await busy(e.currentTarget, call('/api/admin/cloud/test', { method: 'POST', body: body() }), (err) => showErrors(form, err));
          if (res) toast(res.ok ? 'The cloud answered' : res.message || 'The test failed', res.ok ? '' : 'bad');
        },
      }, 'Test'),
      s.url ? h('button', {
        type: 'button', class: 'danger', onclick: async (e) => {
          if (!confirmDo('Forget the cloud settings?')) return;
          if (await busy(e.currentTarget, call('/api/admin/cloud', { method: 'DELETE' }))) cloudPart(box);
        },
      }, 'Remove') : null));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    if (await busy(form.querySelector('[type=submit]'), call('/api/admin/cloud', { method: 'PUT', body: body() }), (err) => showErrors(form, err))) toast('Saved');
  });
  clear(box, card('Cloud storage (WebDAV)', h('p', { class: 'muted small' }, 'Photos go out when the box is online again.'), form));
}

async function updatesPart(box) {
  const s = await call('/api/admin/updates');
  const draw = (u) => clear(box, card('Software',
    h('p', null, `Running ${u.current}. `, u.latest ? `Newest: ${u.latest}.` : ''),
    !u.checkEnabled ? h('p', { class: 'muted' }, 'Update checks are off on this box.') : h('div', { class: 'row' },
      h('button', {
        onclick: async (e) => {
          const res = await busy(e.currentTarget, call('/api/admin/updates/check', { method: 'POST' }));
          if (res) updatesPart(box);
        },
      }, 'Check now'),
      u.available ? h('button', {
        class: 'primary', onclick: async (e) => {
          if (!confirmDo(`Install ${u.latest}? The box makes a backup, then restarts.`)) return;
          const res = await busy(e.currentTarget, call('/api/admin/updates/apply', { method: 'POST', body: { version: u.latest } }));
          if (res) toast('Updating… the box restarts in a moment');
        },
      }, `Install ${u.latest}`) : null),
    u.updater === 'none' ? h('p', { class: 'small muted' }, 'This box cannot restart itself; install updates by hand.') : null,
    u.history && u.history.length ? h('table', { style: 'margin-top:10px' }, h('tbody', null, u.history.map((x) => h('tr', null,
      h('td', null, fmtTime(x.at)), h('td', null, `${x.from} → ${x.version}`), h('td', null, x.status))))) : null));
  draw(s);
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
