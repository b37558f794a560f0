// @ts-check
// The first-run setup page, /setup: on a box nobody set up yet, the setup
// Wi-Fi's captive portal opens it (daemon/setup). The first person to send
// it sets the box up: the owner's sign-in, the guests' Wi-Fi, the country,
// the time zone, and the box's clock from this phone's. Then the phone must
// join the new Wi-Fi. docs/decisions/trust.md, "The first-run setup page".
import { h, $, clear, api, clipboard } from './lib.js';
import { LANGS, loadI18n, pickLang, saveLang } from './i18n.js';

const app = $('#app');
/** @type {import('./i18n.js').Translate} */
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
  titled(t('title'), ...kids);
}

function titled(title, ...kids) {
  document.title = title;
  clear(app, h('main', { class: 'wrap narrow' }, langPicker(),
    h('header', { class: 'hero' }, h('h1', null, title)), ...kids));
}

/** CONSOLE are the console's addresses from the guests' Wi-Fi: the box's
 * name (mDNS), then its address on its own hotspot, for a phone that does
 * not resolve .local names. */
const CONSOLE = ['http://eventbox.local/admin', 'http://10.42.0.1/admin'];

/** copyText copies text, also on a page served over plain http (no
 * clipboard API there), and says so on the button. */
async function copyText(text, btn) {
  await clipboard(text);
  btn.textContent = t('doneCopied');
  setTimeout(() => { btn.textContent = t('doneCopy'); }, 2500);
}

function closedView(reason) {
  const text = { set: t('closedSet'), expired: t('closedExpired'), off: t('closedOff') }[reason] || t('closedSet');
  page(h('div', { class: 'card', role: 'status' }, h('p', null, text)),
    h('p', { class: 'center' }, h('a', { class: 'btn block big primary', href: '/admin' }, t('toConsole'))));
}

/** doneView is the last screen: the Wi-Fi to join with its password, the
 * console's addresses to open next, and to keep the page. */
function doneView(res, owner, wifiPassword) {
  const wifi = res.wifiName;
  const addr = (url) => h('li', { style: 'display:flex;align-items:center;justify-content:space-between;gap:8px' },
    h('a', { href: url, class: 'mono', style: 'overflow-wrap:anywhere;min-width:0' }, url.replace('http://', '')),
    h('button', { type: 'button', class: 'small', onclick: (e) => copyText(url, e.currentTarget) }, t('doneCopy')));
  titled(t('doneTitle'),
    h('div', { class: 'banner good', role: 'status' }, h('p', { style: 'margin:0' }, t('doneKeep'))),
    h('div', { class: 'card stack', id: 'setup-done-wifi' },
      h('h2', { style: 'margin-top:0' }, t('doneWifiStep')),
      h('dl', { class: 'stack', style: 'margin:0' },
        h('dt', { class: 'muted small' }, t('wifiName')), h('dd', { style: 'margin:0' }, h('strong', { class: 'big', id: 'setup-done-ssid' }, wifi)),
        h('dt', { class: 'muted small' }, t('wifiPassword')),
        h('dd', { style: 'margin:0' }, res.open ? t('doneOpen') : h('strong', { class: 'mono big', id: 'setup-done-pass' }, wifiPassword))),
      h('p', { class: 'small' }, t('doneWifiWhy', { wifi }))),
    h('div', { class: 'card stack', id: 'setup-done-next' },
      h('h2', { style: 'margin-top:0' }, t('doneNextStep')),
      h('p', null, t('doneNextHow', { wifi, owner })),
      h('ul', { class: 'list', id: 'setup-done-addresses' }, CONSOLE.map(addr)),
      h('p', { class: 'muted small' }, t('doneNextOther'))),
    res.clockSet ? h('p', { class: 'muted small' }, t('doneClock')) : null);
}

/** field is a labelled input with its hint and its error line. */
function field(id, label, input, hint) {
  input.id = 'setup-' + id;
  const err = h('p', { class: 'err', id: `setup-${id}-err`, role: 'alert' });
  input.setAttribute('aria-describedby', err.id);
  return { id, input, err, el: h('div', { class: 'field' }, h('label', { for: input.id }, label, hint ? h('span', { class: 'hint' }, ' ' + hint) : null), input, err) };
}

/** countrySelect lists the countries by their names in the page's language. */
function countrySelect(list) {
  let names = null;
  try { names = new Intl.DisplayNames([lang], { type: 'region' }); } catch { /* English names */ }
  const named = list.map((c) => [c.code, (names && names.of(c.code)) || c.name]).sort((a, b) => a[1].localeCompare(b[1], lang));
  const guess = guessCountry();
  return h('select', { autocomplete: 'country' }, h('option', { value: '' }, t('countryPick')),
    named.map(([code, name]) => h('option', { value: code, selected: code === guess }, name)));
}

/** plain folds case and accents, so "montreal" finds Montréal. */
const plain = (s) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

/** zoneLabel names a zone by its city first: "Paris (Europe)". */
function zoneLabel(z) {
  const i = z.lastIndexOf('/');
  return i < 0 ? z : `${z.slice(i + 1).replaceAll('_', ' ')} (${z.slice(0, i).replaceAll('_', ' ')})`;
}

/** zonePicker is the time zone list with a search box above it that keeps
 * the zones whose name holds what is typed ("Paris"). */
function zonePicker(zones) {
  const phone = phoneZone();
  const all = zones.map((z) => [z, zoneLabel(z)]).sort((a, b) => a[1].localeCompare(b[1], lang));
  const sel = h('select', null);
  const search = h('input', { type: 'search', id: 'setup-tzSearch', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', placeholder: t('tzSearchHint'), 'aria-label': t('tzSearch') });
  const fill = () => {
    const q = plain(search.value.trim());
    const keep = sel.value;
    const shown = q ? all.filter(([z, l]) => plain(z + ' ' + l).includes(q)) : all;
    clear(sel, q ? null : h('option', { value: '' }, t('tzPick')),
      shown.map(([z, l]) => h('option', { value: z }, l)));
    if (!q && !keep) sel.value = zones.includes(phone) ? phone : '';
    else sel.value = shown.some(([z]) => z === keep) ? keep : (shown[0] || [''])[0];
    if (!shown.length) clear(sel, h('option', { value: '' }, t('tzNone')));
  };
  search.addEventListener('input', fill);
  fill();
  return { sel, search };
}

function formView(state) {
  const zones = zonePicker(state.timeZones || []);
  const fields = {
    ownerName: field('ownerName', t('ownerName'), h('input', { type: 'text', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false', maxlength: 60, required: true })),
    ownerPassword: field('ownerPassword', t('ownerPassword'), h('input', { type: 'password', autocomplete: 'new-password', minlength: 10, required: true }), t('ownerPasswordHint')),
    wifiName: field('wifiName', t('wifiName'), h('input', { type: 'text', autocomplete: 'off', maxlength: 32, required: true })),
    wifiPassword: field('wifiPassword', t('wifiPassword'), h('input', { type: 'text', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', maxlength: 63 }), t('wifiPasswordHint')),
    country: field('country', t('country'), countrySelect(state.countries || []), t('countryHint')),
    timeZone: field('timeZone', t('timeZone'), zones.sel, t('timeZoneHint')),
  };
  fields.timeZone.el.insertBefore(zones.search, zones.sel);
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
    // Every field's problem at once, before anything is sent.
    const v = (k) => fields[k].input.value;
    const wifiPass = v('wifiPassword');
    const problems = {
      ownerName: !v('ownerName').trim() && 'bad_ownerName',
      ownerPassword: [...v('ownerPassword')].length < 10 && 'bad_ownerPassword',
      wifiName: !v('wifiName') && 'bad_wifiName',
      wifiPassword: !open.checked && (!wifiPass ? 'wifiPasswordMissing' : (wifiPass.length < 8 || wifiPass.length > 63) && 'bad_wifiPassword'),
      country: !v('country') && 'bad_country',
      timeZone: !v('timeZone') && 'bad_timeZone',
    };
    let first = null;
    for (const [k, f] of Object.entries(fields)) {
      if (!problems[k]) continue;
      f.err.textContent = t(problems[k]);
      f.el.classList.add('invalid');
      first = first || f.input;
    }
    if (first) return first.focus();
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
      doneView(res, body.ownerName, body.wifiPassword);
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
