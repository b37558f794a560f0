// @ts-check
// The filters of a photo album, shared by the gallery page (/g/<token>)
// and the guests' shared album (the guest page's album tab): by guest,
// place and challenge, over a list loaded whole.
import { h, guestLabel } from './lib.js';

// when is the moment a photo was taken: its EXIF capture time (takenAt)
// when the box read one, else when it arrived.
export const when = (p) => p.takenAt || p.createdAt;

// filterBar returns the filters' controls (null when nothing can be
// filtered): one select per key with more than nothing to choose, the
// guests, places and challenges present in list. filter holds the chosen
// values ({ guest, spot, challenge }, '' = any); onChange redraws.
export function filterBar(t, lang, list, ev, filter, onChange) {
  const guests = [...new Set(list.map((p) => p.guestName).filter(Boolean))].sort((a, b) => a.localeCompare(b, lang));
  const spots = (ev.spots || []).filter((s) => list.some((p) => p.spotId === s.id));
  const challenges = (ev.challenges || []).filter((c) => list.some((p) => p.challengeId === c.id));
  const select = (key, label, none, options) => {
    if (!options.length) return null;
    const id = 'filter-' + key;
    const sel = h('select', { id }, h('option', { value: '' }, none), options.map(([v, l]) => h('option', { value: v, selected: filter[key] === v }, l)));
    sel.addEventListener('change', () => { filter[key] = sel.value; onChange(); });
    return h('div', { class: 'field' }, h('label', { for: id }, label), sel);
  };
  const bar = h('div', { class: 'filters' },
    select('guest', t('filterGuest'), t('filterEveryone'), guests.map((g) => [g, guestLabel(g, t('boothName'))])),
    select('spot', t('filterPlace'), t('filterEverywhere'), spots.map((s) => [s.id, s.label])),
    select('challenge', t('filterChallenge'), t('allChallenges'), challenges.map((c) => [c.id, c.label])));
  return bar.children.length ? bar : null;
}

// filtered is the photos of list that filter keeps, in list's order.
export function filtered(list, filter) {
  return list.filter((p) => (!filter.guest || p.guestName === filter.guest)
    && (!filter.spot || p.spotId === filter.spot) && (!filter.challenge || p.challengeId === filter.challenge));
}
