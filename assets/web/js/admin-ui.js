// @ts-check
// Console building blocks: the API wrapper that notices a lost session,
// form fields with their error slots, and plain-English error text.
import { api, ApiError, h, toast, clipboard } from './lib.js';
import { t } from './admin-i18n.js';

/** signedOut is the event the console listens to: a call answered 401. */
export const SIGNED_OUT = 'eventbox:signed-out';

/**
 * call is api() for console routes: a 401 (session over) sends the
 * console back to the sign-in form.
 */
export async function call(path, opts) {
  try {
    return await api(path, opts);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401 && e.code === 'unauthorized') {
      window.dispatchEvent(new CustomEvent(SIGNED_OUT));
    }
    throw e;
  }
}

/** errText says in plain words why a call failed. */
export function errText(e) {
  if (!(e instanceof ApiError)) return (e && e.message) || t('Something went wrong.');
  switch (e.code) {
    case 'network': return t('The box could not be reached. Check the Wi-Fi and try again.');
    case 'unauthorized': return t('Wrong password, or you are signed out.');
    case 'invalid_code': return t('That code is not right.');
    case 'forbidden': return t('You are not allowed to do this.');
    case 'not_found': return t('Not found: it may have been deleted.');
    case 'rate_limited': return t('Too many attempts. Try again in {n, plural, one {# second} other {# seconds}}.', { n: e.retryAfter || 60 });
    case 'not_implemented': return t('This box does not offer this yet.');
    case 'too_large': return t('That file is too large.');
    case 'invalid_image': return t('That file is not a supported image.');
    // The remote server's own words follow a sentence in the page's
    // language: they name its problem, which only it can say.
    case 'smtp_failed': return e.serverMessage ? t('The test mail could not be sent. The mail server said: {detail}', { detail: e.serverMessage }) : t('The test mail could not be sent.');
    case 'webhook_failed': return e.serverMessage ? t('The receiver did not take the test. It said: {detail}', { detail: e.serverMessage }) : t('The receiver did not take the test.');
    case 'internal': return t('Something went wrong on the box. Try again.');
    case 'bad_request': {
      const d = Object.entries(e.details);
      return d.length ? [...new Set(d.map(([, v]) => detailText(v)))].join(' ') : t('The request was refused.');
    }
  }
  return e.serverMessage || t('The box answered {status} ({code}).', { status: String(e.status || '–'), code: e.code });
}

// DETAILS are the shapes of the box's field problems (the details of a
// bad_request answer, in English as the interface has them) and the
// console's words for each; a problem of no known shape reads as refused.
/** @type {Array<[RegExp, (m: RegExpExecArray) => string]>} */
const DETAILS = [
  [/^(is )?required$|^must be set$/, () => t('This is required.')],
  [/^must be at least (\d+) characters$/, (m) => t('At least {n, plural, one {# character} other {# characters}}.', { n: Number(m[1]) })],
  [/^must be at most (\d+) characters$|^too long$/, (m) => (m[1] ? t('At most {n, plural, one {# character} other {# characters}}.', { n: Number(m[1]) }) : t('This is too long.'))],
  [/^must be (\d+) to (\d+) characters$/, (m) => t('{min} to {max} characters.', { min: Number(m[1]), max: Number(m[2]) })],
  [/^must be an email address$/, () => t('This is not an email address.')],
  [/^is already taken$/, () => t('This is already taken.')],
  [/^is not right$|^is not the code the app shows$|^is not a current or recovery code$/, () => t('That code is not right.')],
  [/^has already ended$/, () => t('The event has already ended.')],
  [/^unknown field$/, () => t('The box does not know this field.')],
  // The console's own shapes, for a 401 it shows under the password field.
  [/^is not your current password$/, () => t('This is not your current password.')],
  [/^is not the generated password$/, () => t('This is not the generated password.')],
  [/^(\w+ )?must be a colour as #rrggbb$|^colours must be #rrggbb$/, () => t('A colour as #rrggbb, such as #1e88e5.')],
  [/^must be 0 \(scheduled backups off\) or (\d+) to (\d+)$/, (m) => t('0 (no scheduled backups), or {min} to {max} days.', { min: Number(m[1]), max: Number(m[2]) })],
];

/** detailText is a field problem the box gave, in the console's language. */
export function detailText(msg) {
  for (const [re, say] of DETAILS) {
    const m = re.exec(String(msg));
    if (m) return say(m);
  }
  return t('The box refused this value.');
}

/** notYet reports whether the box answered that a route has not landed yet. */
export const notYet = (e) => e instanceof ApiError && e.status === 501;

/** unavailable is the card shown where a part of the box answers 501. */
export const unavailable = (what) =>
  h('div', { class: 'card muted' }, t('{what}: this box does not offer this yet. Update the box to use it.', { what }));

let seq = 0;

/**
 * field wraps an input with its label, hint and error slot. name is the API
 * field it edits; showErrors writes details[name] under it.
 */
export function field(name, label, input, hint) {
  const id = input.id || 'f' + ++seq;
  input.id = id;
  if (!input.name) input.name = name;
  return h('div', { class: 'field', dataset: { field: name } },
    h('label', { for: id }, label, hint ? h('div', { class: 'hint' }, hint) : null),
    input,
    h('div', { class: 'err', 'aria-live': 'polite' }));
}

/** check is a checkbox with its label text beside it. */
export function check(name, label, checked, hint) {
  const input = h('input', { type: 'checkbox', name, checked: !!checked });
  return h('div', { class: 'field', dataset: { field: name } },
    h('label', { class: 'check' }, input, h('span', null, label, hint ? h('div', { class: 'hint' }, hint) : null)),
    h('div', { class: 'err' }));
}

/** select builds a <select> from [value, label] pairs. */
export function select(name, options, value) {
  return h('select', { name }, options.map(([v, l]) => h('option', { value: v, selected: v === value }, l)));
}

/**
 * showErrors clears old messages under root and shows the new ones: each
 * entry of a bad_request's details under its field, anything else in the
 * form-level slot (.form-err). Pass null to only clear.
 */
export function showErrors(root, e) {
  root.querySelectorAll('.field.invalid').forEach((f) => f.classList.remove('invalid'));
  root.querySelectorAll('.field .err').forEach((x) => { x.textContent = ''; });
  let general = root.querySelector('.form-err');
  if (!general) {
    general = h('div', { class: 'form-err', role: 'alert' });
    root.append(general);
  }
  general.textContent = '';
  if (!e) return;
  const rest = [];
  if (e instanceof ApiError && e.code === 'bad_request' && Object.keys(e.details).length) {
    for (const [k, msg] of Object.entries(e.details)) {
      const f = root.querySelector(`.field[data-field="${CSS.escape(k)}"]`);
      if (f) {
        f.classList.add('invalid');
        f.querySelector('.err').textContent = detailText(msg);
      } else rest.push(detailText(msg));
    }
    const first = root.querySelector('.field.invalid');
    if (first) {
      const sec = first.closest('details');
      if (sec) sec.open = true;
      first.scrollIntoView({ block: 'center', behavior: 'smooth' });
      const input = first.querySelector('input,select,textarea');
      if (input) input.focus({ preventScroll: true });
    }
  } else rest.push(errText(e));
  general.textContent = rest.join(' ');
}

/**
 * busy disables a button while the promise runs and reports a failure as
 * a toast unless onError handles it. It resolves with the promise's value
 * or undefined on failure.
 */
export async function busy(button, promise, onError) {
  if (button) button.disabled = true;
  try {
    return await promise;
  } catch (e) {
    if (onError) onError(e);
    else toast(errText(e), 'bad');
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

/** confirmDo asks before a destructive action. */
export const confirmDo = (question) => window.confirm(question);

/** msToLocalInput turns epoch ms into a datetime-local value ('' for null). */
export function msToLocalInput(ms) {
  if (!ms) return '';
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** localInputToMs turns a datetime-local value into epoch ms, or null when empty. */
export function localInputToMs(v) {
  if (!v) return null;
  const t = new Date(v).getTime();
  return Number.isFinite(t) ? t : null;
}

/** copyText puts text on the clipboard, with a fallback for plain http. */
export async function copyText(text) {
  await clipboard(text);
  toast(t('Copied'));
}

/** absURL makes a path absolute on this box's address. */
export const absURL = (p) => new URL(p, location.origin).href;
