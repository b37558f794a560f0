// @ts-check
// The box's clock in the console: while GET /api/health says it is
// unsure, the first owner's console sets it from this device's time
// (POST /api/admin/clock) and says so; others are told an owner will.
import { api, h, clear, fmtTime } from './lib.js';
import { t } from './admin-i18n.js';

/** clockUnsure asks the box whether its clock is unsure. */
export async function clockUnsure() {
  try {
    return (await api('/api/health')).clock === 'unsure';
  } catch {
    return false;
  }
}

/** codeHint is the two-step sign-in's hint while the box's clock is unsure. */
export const codeHint = () => t('The box does not know the time yet: type the code your app shows, wait for the next one and type it after the first (12 digits), or use a recovery code.');

/**
 * clockBanner returns the element that tells the hosts about the box's
 * clock; for an owner it sets the clock first when it is unsure.
 */
export function clockBanner(me) {
  const el = h('section', { class: 'banner', id: 'clock-banner', role: 'status', hidden: true });
  (async () => {
    if (!(await clockUnsure())) return;
    if (me.role !== 'owner') {
      el.hidden = false;
      el.classList.add('bad');
      clear(el, t('The box does not know the time yet: dates may be wrong until an owner signs in, which sets the clock.'));
      return;
    }
    try {
      const res = await api('/api/admin/clock', { method: 'POST', body: { now: Date.now() } });
      if (!res.changed) return;
      el.hidden = false;
      el.classList.add('good');
      clear(el, t('The box did not know the time: it is now set from this device ({time}). Photos and messages from before are re-dated.', { time: fmtTime(Date.now()) }));
    } catch {
      el.hidden = false;
      el.classList.add('bad');
      clear(el, t('The box does not know the time yet and could not set it from this device.'));
    }
  })();
  return el;
}
