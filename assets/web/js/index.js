// The box's front page, /: straight to the event when exactly one is open
// (the captive portal's rule), else the event code box (the spec has no
// public list of events), a way back to the last event this phone joined,
// and the hosts' sign-in.
import { h, $, clear } from './lib.js';
import { loadI18n, pickLang } from './i18n.js';

const app = $('#app');

/**
 * currentEvent asks the box where a phone joining its Wi-Fi is sent: the
 * captive-portal probe answers with the guest page of the one open event,
 * or with this page when there are none or several. It resolves that
 * guest page's path, or null.
 */
async function currentEvent() {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 3000);
  try {
    const res = await fetch('/generate_204', { cache: 'no-store', signal: stop.signal });
    const path = new URL(res.url).pathname;
    return path.startsWith('/e/') ? path : null;
  } catch {
    return null; // another origin (BASE_URL), offline, slow: offer the code box
  } finally {
    clearTimeout(timer);
  }
}

async function main() {
  const [target, { t }] = await Promise.all([currentEvent(), loadI18n(pickLang(null))]);
  if (target) {
    location.replace(target);
    return;
  }
  let last = null;
  try { last = JSON.parse(localStorage.getItem('eventbox.lastEvent') || 'null'); } catch { /* storage off */ }
  const code = h('input', { type: 'text', id: 'event-code', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', enterkeyhint: 'go' });
  const form = h('form', { class: 'card' },
    h('div', { class: 'field' }, h('label', { for: 'event-code' }, t('indexCode')), code),
    h('button', { class: 'primary block big', type: 'submit' }, t('indexGo')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    // Accept a bare code or a pasted link such as http://eventbox.local/e/abc.
    const v = code.value.trim().replace(/^.*\/e\//, '').replace(/[?#].*$/, '').replace(/\/+$/, '');
    if (!v) return code.focus();
    location.href = '/e/' + encodeURIComponent(v.toLowerCase());
  });
  clear(app, h('main', { class: 'wrap narrow' },
    h('header', { class: 'hero' }, h('h1', null, t('indexTitle'))),
    last && last.slug ? h('p', { class: 'center' }, h('a', { class: 'btn block big primary', href: '/e/' + encodeURIComponent(last.slug) }, '→ ' + last.name)) : null,
    h('p', { class: 'center muted' }, t('indexHint')),
    form,
    h('p', { class: 'center small', style: 'margin-top:40px' }, h('a', { href: '/admin' }, t('indexHosts')))));
  if (!last) code.focus();
}

main();
