// @ts-check
// The pages' one loader of the language catalogue (assets/web/locales,
// one file per language; i18n's doc says its format). The box
// serves each language's sections apart, /locales/<lang>/<section>.json,
// and the list of languages, /locales/index.js (a module, so it comes with
// the page's code rather than after it); English is the fallback for any
// key. The console's keys are its English: an English console fetches no
// catalogue.
// @ts-expect-error -- the box builds this module at run time (i18n): no file to check.
import INDEX from '/locales/index.js';

async function fetchJSON(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return res.json();
}

/**
 * LANGS are the languages the box speaks, code → the language's own name,
 * as the catalogue's files present them.
 * @type {Record<string, string>}
 */
export const LANGS = INDEX;

const SAVED = 'eventbox.lang';

/**
 * pickLang chooses the language: the one the reader picked on this phone,
 * else the event's default, else the browser's, else English.
 */
export function pickLang(eventDefault) {
  let saved = null;
  try { saved = localStorage.getItem(SAVED); } catch { /* storage off */ }
  if (saved && LANGS[saved]) return saved;
  if (eventDefault && LANGS[eventDefault]) return eventDefault;
  for (const l of navigator.languages || [navigator.language || '']) {
    const full = String(l).toLowerCase();
    if (LANGS[full]) return full;
    const base = full.slice(0, 2);
    if (LANGS[base]) return base;
  }
  return 'en';
}

/** saveLang remembers the reader's own choice. */
export function saveLang(lang) {
  try { localStorage.setItem(SAVED, lang); } catch { /* storage off */ }
}

/**
 * fill fills the blanks of s from vars, in lang (else the page's): {name}
 * is the value, a number written as the language writes numbers (1 234,5
 * in French), so a port, a year, a status or a code is passed as a string
 * (String(port)), which is written as it is; {name, plural, one {# photo} other {# photos}} picks the
 * form of the language's plural category for the value (Intl.PluralRules:
 * one, few, many, other…; =0 or =1 for an exact value), with # the number.
 * The catalogue's one plural scheme; docs/i18n.md says it in full.
 * @param {string} s
 * @param {Record<string, any>} [vars]
 * @param {string} [lang]
 */
export function fill(s, vars, lang) {
  if (!vars) return s;
  lang = lang || (typeof document !== 'undefined' && document.documentElement.lang) || 'en';
  const num = (v) => (typeof v === 'number' ? new Intl.NumberFormat(lang).format(v) : String(v));
  return s.replace(/\{(\w+), plural,((?:[^{}]|\{[^{}]*\})*)\}|\{(\w+)\}/g, (m, pk, forms, k) => {
    if (k) return k in vars ? num(vars[k]) : m;
    if (!(pk in vars)) return m;
    const n = Number(vars[pk]);
    const pick = {};
    for (const [, sel, text] of forms.matchAll(/\s*(=\d+|\w+)\s*\{([^{}]*)\}/g)) pick[sel] = text;
    const text = pick['=' + n] ?? pick[new Intl.PluralRules(lang).select(n)] ?? pick.other ?? '';
    return text.replace(/#/g, num(n));
  });
}

/**
 * Translate gives a key's text with its blanks filled from vars.
 * @typedef {(key: string, vars?: Record<string, any>) => string} Translate
 */

// The sections whose keys are their English texts (i18n's tests
// hold each English text equal to its key): the console's.
const KEYED_BY_ENGLISH = new Set(['console']);

/**
 * loadI18n loads one section of the catalogue (guest, console, wall) in
 * lang and returns { lang, t }: t(key, vars) gives the text with {name}
 * blanks filled from vars, the English text when lang lacks the key, and
 * the key itself when both lack it (the console's keys are its English
 * texts).
 * @param {string} lang
 * @param {string} [section]
 * @returns {Promise<{lang: string, t: Translate}>}
 */
export async function loadI18n(lang, section = 'guest') {
  if (!LANGS[lang]) lang = 'en';
  const part = (l) => fetchJSON(`/locales/${l}/${section}.json`).catch(() => ({}));
  // A section keyed by its English needs no English catalogue: English
  // fetches nothing, another language only its own.
  const keyed = KEYED_BY_ENGLISH.has(section);
  const [en, own] = await Promise.all([keyed ? null : part('en'), lang === 'en' ? null : part(lang)]);
  const dict = { ...(en || {}), ...(own || {}) };
  document.documentElement.lang = lang;
  const t = (key, vars) => fill(dict[key] ?? key, vars, lang);
  return { lang, t };
}
