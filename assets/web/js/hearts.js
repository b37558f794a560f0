// @ts-check
// Hearts: a guest in the shared album, or a gallery visitor, hearts a
// photo from its tile in the grid or from its large view (one heart per
// guest or browser and photo, tapped again to take it back); each heart
// button shows how many hearts the photo has. base is the page's API base
// (/api/e/<slug> or /api/g/<token>); t is the page's catalogue (guest
// section).
import { api, h } from './lib.js';

/** heartsOf returns the page's hearts: which photos this viewer hearted,
 * loaded for a list with load(), a tile's heart, a tile's plain count and
 * the large view's heart. Every heart of a photo on the page shows the
 * same state: a tap changes them all at once, and puts them back with
 * onError's message when the box refuses. */
export function heartsOf(base, t, onError) {
  const given = new Set();
  // counts are the photos' counts by id: the same photo can be in two
  // lists (the favourites and all), as two objects.
  const counts = new Map();
  // busy are the photos whose heart is on its way to the box.
  const busy = new Set();
  const countOf = (p) => (counts.has(p.id) ? counts.get(p.id) : p.hearts || 0);
  const label = (n) => t('heartGive') + (n ? ', ' + t('hearts', { n }) : '');
  const face = (on, n) => (on ? '♥' : '♡') + (n ? ' ' + n : '');
  // badge is a tile's plain count, for a photo no one can heart: nothing
  // without hearts.
  const badge = (p) => (p.hearts > 0 ? h('span', { class: 'hearts-badge', 'aria-hidden': 'true' }, '♥ ' + p.hearts) : null);
  // draw shows one heart button in the photo's state.
  const draw = (b, id, n) => {
    const on = given.has(id);
    b.setAttribute('aria-pressed', on ? 'true' : 'false');
    b.setAttribute('aria-label', label(n));
    const inner = b.querySelector('.hearts-badge');
    (inner || b).textContent = face(on, n);
  };
  // sync draws every heart of the photo on the page: its tiles' and the
  // large view's.
  const sync = (p) => {
    const n = countOf(p);
    p.hearts = n;
    document.querySelectorAll(`[data-heart="${CSS.escape(p.id)}"]`).forEach((b) => draw(b, p.id, n));
  };
  // toggle gives or takes back the viewer's heart at once, then asks the
  // box; taps while the box answers are sent after it, the last one wins.
  // The box's answer is the count; a refusal puts back what the box last
  // said.
  const toggle = async (p) => {
    const on = !given.has(p.id);
    let n = countOf(p);
    if (on) given.add(p.id); else given.delete(p.id);
    counts.set(p.id, Math.max(0, n + (on ? 1 : -1)));
    sync(p);
    if (busy.has(p.id)) return;
    busy.add(p.id);
    let hearted = !on;
    try {
      while (given.has(p.id) !== hearted) {
        const ask = given.has(p.id);
        const res = await api(`${base}/photos/${encodeURIComponent(p.id)}/heart`, { method: ask ? 'PUT' : 'DELETE' });
        hearted = res.hearted;
        n = res.hearts;
        if (hearted !== ask) break;
      }
    } catch (e) {
      if (onError) onError(e);
    } finally {
      busy.delete(p.id);
      if (hearted) given.add(p.id); else given.delete(p.id);
      counts.set(p.id, Math.max(0, n));
      sync(p);
    }
  };
  const make = (p, attrs, inner) => {
    const b = h('button', { type: 'button', dataset: { heart: p.id }, ...attrs }, inner);
    b.addEventListener('click', (e) => { e.stopPropagation(); toggle(p); });
    draw(b, p.id, countOf(p));
    return b;
  };
  return {
    badge,
    /** count is a photo's hearts as this page last knew them, whichever
     * of its copies (favourites or all) was tapped. */
    count: countOf,
    /** load asks which of the photos this viewer hearted, 200 at a time. */
    async load(photos) {
      const ids = photos.map((p) => p.id);
      for (let i = 0; i < ids.length; i += 200) {
        try {
          const res = await api(`${base}/hearts?ids=${ids.slice(i, i + 200).join(',')}`);
          res.hearted.forEach((id) => given.add(id));
        } catch { return; }
      }
    },
    /** tileButton is a tile's heart of p, beside the tile's own button
     * (never in it): a 44 px corner with the count drawn in it. */
    tileButton(p) {
      return make(p, { class: 'tile-heart' }, h('span', { class: 'hearts-badge', 'aria-hidden': 'true' }));
    },
    /** button is the large view's heart of p: pressed when hearted. */
    button(p) {
      return make(p, { class: 'small heart', id: 'heart' });
    },
  };
}

/** lovedFirst returns list sorted by hearts (count(p), by default the
 * photo's own figure), most first, keeping the list's own order among
 * equals. */
export function lovedFirst(list, count = (p) => p.hearts || 0) {
  return list.map((p, i) => [p, i, count(p)]).sort((a, b) => b[2] - a[2] || a[1] - b[1]).map(([p]) => p);
}
