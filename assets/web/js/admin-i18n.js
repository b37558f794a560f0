// @ts-check
// The console's language: one of the catalogue's, chosen on this browser
// (the language menu of the top bar), else the browser's, else English
// (i18n.js's pickLang). The console's texts are their own keys: t('Save')
// is the French of "Save" in the console section of /locales/fr.json, or
// "Save" itself when a language lacks it.
import { pickLang, saveLang, loadI18n, LANGS } from './i18n.js';

/** @type {{lang: string, t: import('./i18n.js').Translate}} */
let current = { lang: 'en', t: (s) => s };

/** loadConsoleLang loads the console's language; call it once, before drawing. */
export async function loadConsoleLang() {
  current = await loadI18n(pickLang(null), 'console');
  return current.lang;
}

/**
 * t is the text in the console's language; {name} placeholders are filled from vars.
 * @param {string} text
 * @param {Record<string, any>} [vars]
 */
export function t(text, vars) {
  return current.t(text, vars);
}

/** consoleLang is the language the console speaks. */
/**
 * mediaCount says how many photos and videos a count holds, each by its
 * own name ("5 photos · 1 video"): all counts every item, videos those
 * that are videos (the API's photos and videos fields).
 */
export function mediaCount(all, videos = 0) {
  const photos = Math.max(0, (all || 0) - (videos || 0));
  if (!videos) return t('{n, plural, one {# photo} other {# photos}}', { n: photos });
  if (!photos) return t('{n, plural, one {# video} other {# videos}}', { n: videos });
  return t('{n, plural, one {# photo} other {# photos}}', { n: photos }) + ' · ' + t('{n, plural, one {# video} other {# videos}}', { n: videos });
}

export function consoleLang() {
  return current.lang;
}

/** langMenu is the top bar's language menu; choosing reloads the page. */
export function langMenu(h) {
  const sel = h('select', { 'aria-label': t('Language'), class: 'lang-menu' },
    Object.entries(LANGS).map(([v, l]) => h('option', { value: v, selected: v === current.lang }, l)));
  sel.addEventListener('change', () => { saveLang(sel.value); location.reload(); });
  return sel;
}
