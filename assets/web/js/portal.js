// @ts-check
// The captive portal page, /portal: a phone that joins the hotspot opens
// its Wi-Fi sign-in sheet (iOS's and macOS's web sheet, Android's captive
// portal login), where a file picker or the camera may not open, nothing
// stays stored, and closing the sheet may drop the Wi-Fi. The page says how
// to open the event in the phone's own browser, with its address and a
// copy button; "Continue" tells the box that this phone went through, so
// that its connectivity checks are answered as online while the phone
// uses the box (ten minutes after its last page) and the sheet goes away (daemon/api/portal, docs/decisions/guests.md,
// "Through the captive sheet").
import { h, $, clear, api } from './lib.js';
import { LANGS, loadI18n, pickLang, saveLang } from './i18n.js';

const app = $('#app');
let t = (k) => k;
let lang = 'en';

function langPicker() {
  const sel = h('select', { id: 'portal-lang', 'aria-label': t('language'), style: 'width:auto;min-width:9em' },
    Object.entries(LANGS).map(([code, name]) => h('option', { value: code, selected: code === lang }, name)));
  sel.addEventListener('change', () => { saveLang(sel.value); start(); });
  return h('div', { class: 'row end' }, sel);
}

function page(...kids) {
  clear(app, h('main', { class: 'wrap narrow portal' }, langPicker(), ...kids));
}

/** copyText puts text on the clipboard, with a fallback for plain http. */
async function copyText(text, el) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    try { return document.execCommand('copy'); } catch { return false; }
  }
}

/** addressBox is the event's address, whole and selectable, with its copy button. */
function addressBox(address) {
  const url = h('p', { id: 'portal-address', class: 'portal-url', 'aria-labelledby': 'portal-address-label' }, address);
  const said = h('p', { class: 'muted small', id: 'portal-copied', role: 'status' });
  const copy = h('button', { type: 'button', id: 'portal-copy', class: 'block' }, t('copy'));
  copy.addEventListener('click', async () => {
    said.textContent = (await copyText(address, url)) ? t('copied') : t('copyByHand');
  });
  return h('div', { class: 'stack' },
    h('p', { id: 'portal-address-label', class: 'portal-label' }, t('address')), url, copy, said);
}

function askView(state) {
  const problem = h('p', { class: 'form-err', role: 'alert' });
  const go = h('button', { class: 'primary block big', type: 'button', id: 'portal-continue' }, t('continue'));
  go.addEventListener('click', async () => {
    go.disabled = true;
    problem.textContent = '';
    try {
      await api('/api/portal/continue', { method: 'POST' });
      // A new page load: the phone checks its connection again, finds it
      // online, and offers to close the sheet.
      location.replace('/portal');
    } catch {
      go.disabled = false;
      problem.textContent = t('failed');
    }
  });
  page(h('header', { class: 'hero' }, h('h1', null, t('title'))),
    h('p', null, t('intro')),
    h('div', { class: 'card stack' }, addressBox(state.address),
      h('ol', { class: 'portal-steps' },
        h('li', null, t('stepCopy')),
        h('li', null, t('stepContinue')),
        h('li', null, t('stepBrowser')))),
    problem, go);
}

function doneView(state) {
  page(h('header', { class: 'hero' }, h('h1', null, t('doneTitle'))),
    h('div', { class: 'card stack', role: 'status' },
      h('p', null, t('doneText')), addressBox(state.address)),
    h('p', { class: 'center' }, h('a', { class: 'btn block', id: 'portal-here', href: state.address }, t('openHere'))));
}

async function start() {
  lang = pickLang(null);
  const [i18n, state] = await Promise.all([loadI18n(lang, 'portal'), api('/api/portal').catch(() => null)]);
  ({ t, lang } = i18n);
  document.title = t('title');
  if (!state) return page(h('p', { class: 'form-err', role: 'alert' }, t('offline')));
  if (state.through) return doneView(state);
  askView(state);
}

start();
