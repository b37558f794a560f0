// The first-run setup page, /setup: on a box nobody set up yet, the setup
// Wi-Fi's captive portal opens it (daemon/setup). The first person to send
// it sets the box up: the owner's sign-in, the guests' Wi-Fi, the country,
// the time zone, and the box's clock from this phone's. Then the phone must
// join the new Wi-Fi. docs/decisions/trust.md, "The first-run setup page".
import { h, $, clear, api } from './lib.js';
import { LANGS, loadI18n, pickLang, saveLang } from './i18n.js';

const app = $('#app');
let t = (k) => k;
let lang = 'en';

/** guessCountry reads a country from the phone's languages (fr-FR → FR). */
function guessCountry() {
  for (const l of navigator.languages || [navigator.language || '']) {
    const m = /^[a-z]{2,3}-([A-Za-z]{2})$/.exec(String(l));
    if (m) return m[1].toUpperCase();
  }
  return '';
}

function phoneZone() {
  try { return Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch { return ''; }
}

function fmtClock(ms) {
  return new Date(ms).toLocaleString(lang, { dateStyle: 'medium', timeStyle: 'short' });
}

function langPicker() {
  const sel = h('select', { id: 'setup-lang', 'aria-label': t('language'), style: 'width:auto;min-width:9em' },
    Object.entries(LANGS).map(([code, name]) => h('option', { value: code, selected: code === lang }, name)));
  sel.addEventListener('change', () => { saveLang(sel.value); start(); });
  return h('div', { class: 'row end' }, sel);
}

function page(...kids) {
  clear(app, h('main', { class: 'wrap narrow' }, langPicker(),
    h('header', { class: 'hero' }, h('h1', null, t('title'))), ...kids));
}

function closedView(reason) {
  const text = { set: t('closedSet'), expired: t('closedExpired'), off: t('closedOff') }[reason] || t('closedSet');
  page(h('div', { class: 'card', role: 'status' }, h('p', null, text)),
    h('p', { class: 'center' }, h('a', { class: 'btn block big primary', href: '/admin' }, t('toConsole'))));
}

function doneView(res, owner) {
  page(h('div', { class: 'card stack', role: 'status' },
    h('h2', { style: 'margin-top:0' }, t('doneTitle')),
    h('p', null, t(res.open ? 'doneJoinOpen' : 'doneJoin', { wifi: res.wifiName })),
    h('p', null, t('doneConsole', { owner })),
    res.clockSet ? h('p', { class: 'muted small' }, t('doneClock')) : null),
  h('p', { class: 'center' }, h('a', { class: 'btn block big', href: '/admin' }, t('toConsole'))));
}

/** field is a labelled input with its hint and its error line. */
function field(id, label, input, hint) {
  input.id = 'setup-' + id;
  const err = h('p', { class: 'err', id: `setup-${id}-err`, role: 'alert' });
  input.setAttribute('aria-describedby', err.id);
  return { id, input, err, el: h('div', { class: 'field' }, h('label', { for: input.id }, label, hint ? h('span', { class: 'hint' }, ' ' + hint) : null), input, err) };
}

function formView(state) {
  const fields = {
    ownerName: field('ownerName', t('ownerName'), h('input', { type: 'text', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false', maxlength: 60, required: true })),
    ownerPassword: field('ownerPassword', t('ownerPassword'), h('input', { type: 'password', autocomplete: 'new-password', minlength: 10, required: true }), t('ownerPasswordHint')),
    wifiName: field('wifiName', t('wifiName'), h('input', { type: 'text', autocomplete: 'off', maxlength: 32, required: true })),
    wifiPassword: field('wifiPassword', t('wifiPassword'), h('input', { type: 'text', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', maxlength: 63 }), t('wifiPasswordHint')),
    country: field('country', t('country'), h('input', { type: 'text', autocomplete: 'country', maxlength: 2, value: guessCountry(), style: 'max-width:6em;text-transform:uppercase' }), t('countryHint')),
    timeZone: field('timeZone', t('timeZone'), h('input', { type: 'text', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', value: phoneZone() }), t('timeZoneHint')),
  };
  const open = h('input', { type: 'checkbox', id: 'setup-open' });
  open.addEventListener('change', () => {
    fields.wifiPassword.input.disabled = open.checked;
    if (open.checked) fields.wifiPassword.input.value = '';
  });
  const clock = h('p', { class: 'small', id: 'setup-clock' });
  const tick = () => { clock.textContent = t('clock', { time: fmtClock(Date.now()) }); };
  tick();
  setInterval(tick, 15000);
  const problem = h('p', { class: 'form-err', role: 'alert' });
  const send = h('button', { class: 'primary block big', type: 'submit' }, t('send'));
  const form = h('form', { class: 'stack', novalidate: true },
    h('fieldset', null, h('legend', null, t('ownerTitle')), fields.ownerName.el, fields.ownerPassword.el),
    h('fieldset', null, h('legend', null, t('wifiTitle')), h('p', { class: 'muted small' }, t('wifiIntro')),
      fields.wifiName.el, fields.wifiPassword.el,
      h('label', { class: 'check', for: 'setup-open' }, open, h('span', null, t('wifiOpen')))),
    h('fieldset', null, h('legend', null, t('placeTitle')), fields.country.el, fields.timeZone.el, clock),
    problem, send);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    problem.textContent = '';
    for (const f of Object.values(fields)) { f.err.textContent = ''; f.el.classList.remove('invalid'); }
    if (!open.checked && !fields.wifiPassword.input.value) {
      fields.wifiPassword.err.textContent = t('wifiPasswordMissing');
      fields.wifiPassword.el.classList.add('invalid');
      fields.wifiPassword.input.focus();
      return;
    }
    send.disabled = true;
    const body = {
      ownerName: fields.ownerName.input.value.trim(),
      ownerPassword: fields.ownerPassword.input.value,
      wifiName: fields.wifiName.input.value,
      wifiPassword: open.checked ? '' : fields.wifiPassword.input.value,
      country: fields.country.input.value.trim().toUpperCase(),
      timeZone: fields.timeZone.input.value.trim(),
      time: Date.now(),
    };
    try {
      const res = await api('/api/setup', { method: 'POST', body });
      doneView(res, body.ownerName);
    } catch (err) {
      send.disabled = false;
      if (err.code === 'forbidden' && err.details.setup) return closedView(err.details.setup);
      if (err.code === 'bad_request') {
        let first = null;
        for (const [k, f] of Object.entries(fields)) {
          if (!err.details[k]) continue;
          f.err.textContent = t('bad_' + k);
          f.el.classList.add('invalid');
          first = first || f.input;
        }
        if (first) return first.focus();
        problem.textContent = err.details.time ? t('bad_time') : t('failed');
        return;
      }
      problem.textContent = err.code === 'rate_limited' ? t('wait') : err.code === 'network' ? t('offline') : t('failed');
    }
  });
  page(h('div', { class: 'card' }, h('p', null, t('intro')),
    h('p', { class: 'muted small' }, t('window', { time: fmtClock(state.closesAt) }))), form);
  fields.ownerName.input.focus();
}

async function start() {
  lang = pickLang(null);
  const [i18n, state] = await Promise.all([loadI18n(lang, 'setup'), api('/api/setup').catch(() => null)]);
  ({ t, lang } = i18n);
  document.title = t('title');
  if (!state) return page(h('p', { class: 'form-err', role: 'alert' }, t('offline')));
  if (state.state !== 'open') return closedView(state.reason);
  formView(state);
}

start();
