// @ts-check
// The box's front page, /: straight to the event when exactly one is open
// (the captive portal's rule); with several, the open events by name and
// logo; and always the code box, which takes the access code the hosts gave
// out (it opens and joins its event) as well as an event's slug or link.
// A refused code is said beside the box: the page never dead-ends.
// docs/decisions.md, "A join that never dead-ends".
import { h, $, clear, api } from './lib.js';
import { loadI18n, pickLang } from './i18n.js';

const app = $('#app');

/** openEvents resolves the events open now (GET /api/events), or null. */
async function openEvents() {
  try {
    return (await api('/api/events')).events;
  } catch {
    return null; // offline or slow: offer the code box
  }
}

function eventCard(ev) {
  const logo = ev.logoVersion
    ? h('img', { class: 'logo', src: `/api/e/${encodeURIComponent(ev.slug)}/logo?v=${ev.logoVersion}`, alt: '', loading: 'lazy' })
    : h('span', { class: 'logo', 'aria-hidden': 'true', style: `background:${ev.accentColor || 'var(--accent)'}` });
  return h('li', null, h('a', { class: 'btn block big event-choice', href: '/e/' + encodeURIComponent(ev.slug) }, logo, h('span', null, ev.name)));
}

async function main() {
  const [events, { t }] = await Promise.all([openEvents(), loadI18n(pickLang(null))]);
  if (events && events.length === 1) {
    location.replace('/e/' + encodeURIComponent(events[0].slug));
    return;
  }
  let last = null;
  try { last = JSON.parse(localStorage.getItem('eventbox.lastEvent') || 'null'); } catch { /* storage off */ }
  const code = h('input', { type: 'text', id: 'event-code', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', enterkeyhint: 'go', 'aria-describedby': 'event-code-error' });
  const problem = h('p', { id: 'event-code-error', class: 'error', role: 'alert' });
  const go = h('button', { class: 'primary block big', type: 'submit' }, t('indexGo'));
  const form = h('form', { class: 'card' },
    h('div', { class: 'field' }, h('label', { for: 'event-code' }, t('indexCode')), code),
    problem, go);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = code.value.trim();
    if (!v) return code.focus();
    problem.textContent = '';
    go.disabled = true;
    try {
      const res = await api('/api/join', { method: 'POST', body: { code: v } });
      location.href = '/e/' + encodeURIComponent(res.slug);
    } catch (err) {
      problem.textContent = err.code === 'invalid_code' ? t('indexCodeWrong')
        : err.code === 'rate_limited' ? t('indexCodeWait')
          : t('indexCodeOffline');
      code.focus();
    } finally {
      go.disabled = false;
    }
  });
  const several = events && events.length > 1;
  clear(app, h('main', { class: 'wrap narrow' },
    h('header', { class: 'hero' }, h('h1', null, t('indexTitle'))),
    last && last.slug ? h('p', { class: 'center' }, h('a', { class: 'btn block big primary', href: '/e/' + encodeURIComponent(last.slug) }, '→ ' + last.name)) : null,
    several ? h('section', { 'aria-labelledby': 'open-events' },
      h('h2', { id: 'open-events' }, t('indexOpenEvents')),
      h('ul', { class: 'event-list' }, events.map(eventCard))) : null,
    h('p', { class: 'center muted' }, t('indexHint')),
    form,
    h('p', { class: 'center small', style: 'margin-top:40px' }, h('a', { href: '/admin' }, t('indexHosts')))));
  if (!last && !several) code.focus();
}

main();
