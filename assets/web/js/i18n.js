// Translations of the guest, gallery and booth pages: en, fr, it and es,
// from /locales/<lang>.json, with English as the fallback for any key.

/** LANGS are the languages the pages speak, by code. */
export const LANGS = { en: 'English', fr: 'Français', it: 'Italiano', es: 'Español' };

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
    const base = String(l).slice(0, 2).toLowerCase();
    if (LANGS[base]) return base;
  }
  return 'en';
}

/** saveLang remembers the reader's own choice. */
export function saveLang(lang) {
  try { localStorage.setItem(SAVED, lang); } catch { /* storage off */ }
}

async function fetchLocale(lang, prefix = '') {
  const res = await fetch(`/locales/${prefix}${lang}.json`);
  if (!res.ok) throw new Error(`locale ${lang}: ${res.status}`);
  return res.json();
}

/**
 * loadI18n loads lang and returns { lang, t }: t(key, vars) gives the text
 * with {name} placeholders filled from vars, the English text when lang
 * lacks the key, and the key itself when both lack it. prefix names
 * another set of files, /locales/<prefix><lang>.json (the console's are
 * admin-…, keyed by their English text, so they have no English file).
 */
export async function loadI18n(lang, prefix = '') {
  if (!LANGS[lang]) lang = 'en';
  const [en, own] = await Promise.all([
    prefix ? {} : fetchLocale('en').catch(() => ({})),
    lang === 'en' ? null : fetchLocale(lang, prefix).catch(() => ({})),
  ]);
  const dict = { ...en, ...(own || {}) };
  document.documentElement.lang = lang;
  const t = (key, vars) => {
    let s = dict[key] ?? key;
    if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
    return s;
  };
  return { lang, t };
}
