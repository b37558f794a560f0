// @ts-check
// The console (/admin/…) and the invitation page (/invite/<token>): the
// shell, the router, sign-in, the event list and the account page. Parts
// used less often load on demand from their own modules.
import { api, h, $, clear, toast, fmtDate, showCurrentTabs } from './lib.js';
import { call, errText, field, showErrors, busy, notYet, unavailable, SIGNED_OUT } from './admin-ui.js';
import { storageBanner, restoreNote, reenterBanner } from './admin-backup.js';
import { clockBanner, clockUnsure, codeHint } from './admin-clock.js'; // the box's clock
import { crowdBanner } from './admin-phones.js'; // the Wi-Fi nearly full
import { t, loadConsoleLang, langMenu, mediaCount } from './admin-i18n.js';

const app = $('#app');
/** ctx is what every view gets: the signed-in account and navigation. */
const ctx = { me: null, go, refreshMe, app };

function go(path, replace) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  route();
}

// Same-origin links inside the console navigate without reloading.
document.addEventListener('click', (e) => {
  const a = /** @type {HTMLAnchorElement | null} */ (/** @type {Element} */ (e.target).closest('a[href]'));
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target || a.hasAttribute('download')) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith('/admin') || url.pathname.startsWith('/admin/wall')) return;
  e.preventDefault();
  go(url.pathname + url.search + url.hash);
});
window.addEventListener('popstate', route);
window.addEventListener(SIGNED_OUT, () => {
  if (ctx.me) { ctx.me = null; route(); }
});

async function refreshMe() {
  try {
    ctx.me = (await api('/api/admin/me')).account;
  } catch (e) {
    if (e.status !== 401) throw e;
    ctx.me = null;
  }
  return ctx.me;
}

let routing = 0;
async function route() {
  const n = ++routing;
  const path = location.pathname.replace(/\/+$/, '') || '/';
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'invite') return invitePage(decodeURIComponent(parts[1] || ''));
  if (!ctx.me) {
    try {
      await refreshMe();
    } catch (e) {
      return clear(app, shell(null, h('div', { class: 'banner bad' }, errText(e), ' ', h('button', { class: 'small', onclick: route }, t('Retry')))));
    }
    if (n !== routing) return;
    if (!ctx.me) return signInPage();
  }
  // The box made this password: nothing else before the host picks one.
  if (ctx.me.mustChangePassword) return newPasswordPage();
  const [, section, id, tab] = parts;
  try {
    switch (section) {
      case undefined:
        return await eventsPage();
      case 'events':
        if (id === 'new') return await (await import('./admin-event.js')).newEventPage(ctx, view);
        if (id) return await (await import('./admin-event.js')).eventPage(ctx, view, id, tab || 'settings');
        return go('/admin', true);
      case 'wall':
        // The wall moved to wall links (/wall/<token>), made on the
        // event's Share tab.
        return ctx.go('/admin/events/' + encodeURIComponent(id || '') + '/share', true);
      case 'account':
        return accountPage();
      case 'about':
        return await (await import('./admin-system.js')).aboutPage(ctx, view);
      case 'team':
        return await (await import('./admin-system.js')).teamPage(ctx, view);
      case 'settings':
        return await (await import('./admin-system.js')).settingsPage(ctx, view, id || 'mail');
      case 'stats':
        return await (await import('./admin-system.js')).statsPage(ctx, view);
      default:
        return view(t('Not found'), h('p', null, t('This page does not exist. '), h('a', { href: '/admin' }, t('Back to the events'))));
    }
  } catch (e) {
    view(t('Problem'), h('div', { class: 'banner bad' }, errText(e)), h('p', null, h('a', { href: '/admin' }, t('Back to the events'))));
  }
}

// banner warns the hosts on every page while the card is nearly full
// (made at the first signed-in page).
let banner = null;
let clockNote = null; // the box's clock, set by the first owner while unsure
// crowd tells the hosts while the Wi-Fi has stayed nearly full (admin-phones.js).
let crowd = null;
// reenter lists, for owners, the secrets a restore lost (admin-backup.js).
let reenter = null;
// restored says, on the first page after a restore, that it is done
// (made with the first page, in the console's language).
let restored;

// skipTo moves the focus past the bars to the page's own content: the
// photos on the photo grid (the page marks its target with data-skip),
// else the main area.
function skipTo(e) {
  e.preventDefault();
  const to = /** @type {HTMLElement | null} */ (document.querySelector('[data-skip] .tile .pick') || document.querySelector('[data-skip]') || document.querySelector('#main'));
  if (!to) return;
  if (!to.matches('a, button, input, select, textarea, [tabindex]')) to.setAttribute('tabindex', '-1');
  to.focus();
}

// The top bar stays on the screen as the page scrolls: the page keeps
// what is scrolled into view (a control the keyboard focuses, a link's
// target) clear of it, with a little air (WCAG 2.4.11, focus not obscured).
const underTopBar = new ResizeObserver((entries) => {
  for (const e of entries) document.documentElement.style.scrollPaddingTop = `${Math.ceil(e.target.getBoundingClientRect().height) + 8}px`;
});

/** shell is the page frame: top bar with navigation, then the content. */
function shell(me, ...content) {
  if (me && !banner) banner = storageBanner(() => !!ctx.me && ctx.me.role === 'owner');
  if (banner) banner.draw(); // its link is for owners: the account may have changed
  if (me && !clockNote) clockNote = clockBanner(me); // the box's clock (admin-clock.js)
  if (me && !crowd) crowd = crowdBanner(() => !!ctx.me && ctx.me.role === 'owner');
  if (restored === undefined) restored = restoreNote();
  const here = location.pathname;
  if (me && me.role === 'owner') {
    if (!reenter) reenter = reenterBanner();
    reenter.look(here);
  }
  const link = (href, label) => h('a', { href, 'aria-current': (href === '/admin' ? here === '/admin' || here.startsWith('/admin/events') : here.startsWith(href)) ? 'page' : null }, label);
  const nav = me ? h('nav', { class: 'tabs', 'aria-label': t('Console') },
    link('/admin', t('Events')),
    link('/admin/stats', t('Stats')),
    me.role === 'owner' ? link('/admin/team', t('Team')) : null,
    me.role === 'owner' ? link('/admin/settings', t('Settings')) : null,
    link('/admin/account', t('Account'))) : null;
  const top = h('header', { class: 'top' }, h('div', { class: 'wrap spread', style: 'padding-bottom:0' },
    h('a', { class: 'brand', href: me ? '/admin' : '/' }, 'eventbox'),
    me ? h('span', { class: 'row small muted' }, h('a', { href: '/admin/account', class: 'muted', id: 'me' }, me.name || me.username),
      h('button', { class: 'small', onclick: signOut }, t('Sign out'))) : langMenu(h)),
  h('div', { class: 'wrap', style: 'padding-top:0;padding-bottom:0' }, nav));
  underTopBar.disconnect();
  underTopBar.observe(top);
  return [
    h('a', { class: 'skip', href: '#main', onclick: skipTo }, t('Skip to the content')),
    top,
    h('main', { class: 'wrap', id: 'main' }, restored, me ? banner : null, me ? crowd : null, me ? clockNote : null, me && me.role === 'owner' ? reenter : null, content),
  ];
}

/** view replaces the page with a titled view inside the shell. */
function view(title, ...content) {
  document.title = title + ' · eventbox';
  clear(app, shell(ctx.me, title ? h('h1', null, title) : null, content));
  showCurrentTabs(app);
  return app;
}

async function signOut(e) {
  await busy(e.currentTarget, api('/api/admin/logout', { method: 'POST' }).catch((err) => { if (err.status !== 401) throw err; }));
  ctx.me = null;
  go('/admin');
}

function signInPage() {
  document.title = t('Sign in · eventbox');
  const user = h('input', { type: 'text', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false', placeholder: 'admin' });
  const pass = h('input', { type: 'password', autocomplete: 'current-password', required: true });
  const form = h('form', { class: 'card stack', id: 'sign-in', novalidate: true },
    field('username', t('Username'), user, t('Leave empty for the first owner.')),
    field('password', t('Password'), pass),
    h('button', { class: 'primary block', type: 'submit' }, t('Sign in')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const btn = form.querySelector('button[type=submit]');
    const res = await busy(btn, api('/api/admin/login', { method: 'POST', body: { username: user.value.trim(), password: pass.value } }),
      (err) => showErrors(form, err.status === 401 ? new Error(t('Wrong username or password.')) : err));
    if (!res) return;
    if (res.codeRequired) return codePage();
    await refreshMe();
    route();
  });
  clear(app, shell(null, h('div', { class: 'narrow', style: 'margin:8vh auto 0' }, h('h1', null, t('Sign in')), form)));
  (user.value ? pass : user).focus();
}

function codePage() {
  const code = h('input', { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', autocapitalize: 'none' });
  const clockHint = h('p', { class: 'banner', hidden: true }, codeHint());
  clockUnsure().then((unsure) => { clockHint.hidden = !unsure; });
  const form = h('form', { class: 'card stack', id: 'sign-in-code', novalidate: true },
    field('code', t('Code'), code, t('The six digits from your authenticator app, or one of your recovery codes.')),
    clockHint, // while the box's clock is unsure (admin-clock.js)
    h('button', { class: 'primary block', type: 'submit' }, t('Continue')),
    h('button', { class: 'linkish', type: 'button', onclick: signInPage }, t('Start again')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const res = await busy(form.querySelector('button[type=submit]'),
      api('/api/admin/login/code', { method: 'POST', body: { code: code.value.replace(/\s+/g, '') } }),
      (err) => showErrors(form, err.status === 401 ? new Error(t('That code is not right.')) : err));
    if (!res) return;
    await refreshMe();
    route();
  });
  clear(app, shell(null, h('div', { class: 'narrow', style: 'margin:8vh auto 0' }, h('h1', null, t('Two-step sign-in')), form)));
  code.focus();
}

function eventStatus(ev) {
  if (ev.endedAt) return h('span', { class: 'pill' }, t('Ended'));
  if (!ev.uploadsOpen) return h('span', { class: 'pill warn' }, t('Uploads closed'));
  return h('span', { class: 'pill good' }, t('Open'));
}

async function eventsPage() {
  const { events } = await call('/api/admin/events');
  const owner = ctx.me.role === 'owner';
  const search = h('input', { type: 'search', placeholder: t('Search events'), 'aria-label': t('Search events') });
  const list = h('ul', { class: 'list', id: 'events' });
  const draw = () => {
    const q = search.value.trim().toLowerCase();
    const rows = events.filter((ev) => !q || ev.name.toLowerCase().includes(q));
    clear(list, rows.length ? rows.map((ev) => h('li', { dataset: { id: ev.id } },
      h('div', { class: 'spread' },
        h('a', { class: 'title', href: '/admin/events/' + ev.id }, ev.name),
        eventStatus(ev)),
      h('div', { class: 'small muted' },
        [ev.eventDate ? fmtDate(ev.eventDate) : t('No date'), mediaCount(ev.photos, ev.videos),
          '/e/' + ev.slug].filter(Boolean).join(' · '),
        ev.pending ? [' ', h('span', { class: 'count-badge' }, String(ev.pending)), ' ', t('waiting for review')] : null))) :
      h('li', { class: 'muted' }, events.length ? t('No event matches.') : owner ? t('No event yet. Create the first one.') : t('No event has been shared with you yet.')));
  };
  search.addEventListener('input', draw);
  draw();
  // With several events open, / lists them and guests must pick theirs:
  // say so, as most parties want one open event.
  const open = events.filter((ev) => !ev.endedAt && ev.uploadsOpen);
  view(t('Events'),
    open.length > 1 ? h('p', { class: 'banner warn', id: 'several-open', role: 'status' },
      t('{n, plural, one {# event is open} other {# events are open}} at once: guests who scan the box\'s address see a list and must pick theirs. End or close the ones that are over.', { n: open.length })) : null,
    h('div', { class: 'row', style: 'margin-bottom:10px' },
      events.length > 6 ? h('div', { class: 'grow' }, search) : h('div', { class: 'grow' }),
      owner ? h('a', { class: 'btn primary', href: '/admin/events/new' }, t('+ New event')) : null),
    list);
}

/** newPasswordPage asks for a new password after a sign-in with the generated one. */
function newPasswordPage() {
  const current = h('input', { type: 'password', id: 'first-current', autocomplete: 'current-password' });
  const next = h('input', { type: 'password', id: 'first-next', autocomplete: 'new-password', minlength: 10 });
  const again = h('input', { type: 'password', id: 'first-again', autocomplete: 'new-password' });
  const form = h('form', { class: 'card narrow', id: 'first-password', novalidate: true },
    h('p', null, t('You signed in with the password the box generated. Choose your own now: the generated one stops working, and the box deletes its copy (the initial-password file).')),
    field('current', t('Generated password'), current),
    field('next', t('New password'), next, t('At least 10 characters.')),
    field('again', t('New password again'), again),
    h('button', { class: 'primary', type: 'submit' }, t('Save my password')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    if (next.value !== again.value) {
      const f = form.querySelector('[data-field=again]');
      f.classList.add('invalid');
      f.querySelector('.err').textContent = t('The two new passwords differ.');
      return;
    }
    const res = await busy(form.querySelector('[type=submit]'),
      api('/api/admin/password', { method: 'POST', body: { current: current.value, next: next.value } }),
      (err) => showErrors(form, err.status === 401 ? Object.assign(err, { code: 'bad_request', details: { current: 'is not the generated password' } }) : err));
    if (!res) return;
    ctx.me = { ...ctx.me, mustChangePassword: false };
    toast(t('Password saved'));
    route();
  });
  view(t('Choose your password'), form);
}

async function accountPage() {
  const me = ctx.me;
  const name = h('input', { type: 'text', value: me.name || '', autocomplete: 'name' });
  const email = h('input', { type: 'email', value: me.email || '', autocomplete: 'email' });
  const profile = h('form', { class: 'card', novalidate: true },
    h('h2', { style: 'margin-top:0' }, t('Profile')),
    h('p', { class: 'muted small' }, t('Signed in as {user} ({role}).', { user: me.username, role: t(me.role) })),
    field('name', t('Name'), name), field('email', t('Email'), email, t('Summaries and alerts go here.')),
    h('button', { class: 'primary', type: 'submit' }, t('Save')));
  profile.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(profile, null);
    const res = await busy(profile.querySelector('[type=submit]'),
      call('/api/admin/me', { method: 'PATCH', body: { name: name.value.trim(), email: email.value.trim() } }), (err) => showErrors(profile, err));
    if (res) { ctx.me = res.account; toast(t('Saved')); }
  });

  const current = h('input', { type: 'password', autocomplete: 'current-password' });
  const next = h('input', { type: 'password', autocomplete: 'new-password', minlength: 10 });
  const again = h('input', { type: 'password', autocomplete: 'new-password' });
  const pw = h('form', { class: 'card', novalidate: true },
    h('h2', { style: 'margin-top:0' }, t('Password')),
    field('current', t('Current password'), current),
    field('next', t('New password'), next, t('At least 10 characters. Your other devices are signed out.')),
    field('again', t('New password again'), again),
    h('button', { class: 'primary', type: 'submit' }, t('Change password')));
  pw.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(pw, null);
    if (next.value !== again.value) {
      const f = pw.querySelector('[data-field=again]');
      f.classList.add('invalid');
      f.querySelector('.err').textContent = t('The two new passwords differ.');
      return;
    }
    const res = await busy(pw.querySelector('[type=submit]'),
      api('/api/admin/password', { method: 'POST', body: { current: current.value, next: next.value } }),
      (err) => showErrors(pw, err.status === 401 ? Object.assign(err, { code: 'bad_request', details: { current: 'is not your current password' } }) : err));
    if (res) { pw.reset(); toast(t('Password changed')); }
  });

  const tf = h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, t('Two-step sign-in')), h('p', { class: 'muted' }, t('Loading…')));
  view(t('Account'), h('div', { class: 'two' }, h('div', null, profile, tf), pw),
    h('p', { class: 'small' }, h('a', { href: '/admin/about', id: 'about-link' }, t('About eventbox: version and licences'))));
  (await import('./admin-system.js')).twoFactorCard(ctx, tf).catch((e) => {
    clear(tf, h('h2', { style: 'margin-top:0' }, t('Two-step sign-in')), notYet(e) ? unavailable(t('Two-step sign-in')) : h('p', { class: 'form-err' }, errText(e)));
  });
}

function invitePage(token) {
  document.title = t('Join · eventbox');
  const username = h('input', { type: 'text', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false' });
  const name = h('input', { type: 'text', autocomplete: 'name' });
  const pass = h('input', { type: 'password', autocomplete: 'new-password' });
  const form = h('form', { class: 'card', novalidate: true },
    field('username', t('Username'), username, t('What you type to sign in.')),
    field('name', t('Your name'), name),
    field('password', t('Password'), pass, t('At least 10 characters.')),
    h('button', { class: 'primary block', type: 'submit' }, t('Create my account')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const res = await busy(form.querySelector('[type=submit]'),
      api('/api/admin/invite/' + encodeURIComponent(token), { method: 'POST', body: { username: username.value.trim(), name: name.value.trim(), password: pass.value } }),
      (err) => showErrors(form, err.status === 404 ? new Error(t('This invitation was already used, has expired or was withdrawn. Ask for a new one.')) : err));
    if (!res) return;
    await refreshMe();
    go('/admin', true);
  });
  clear(app, shell(null, h('div', { class: 'narrow', style: 'margin:6vh auto 0' },
    h('h1', null, t('Join the team')),
    h('p', { class: 'muted' }, t('You were invited to help run events on this eventbox. Choose how you will sign in.')),
    form)));
  username.focus();
}

loadConsoleLang().finally(route);
