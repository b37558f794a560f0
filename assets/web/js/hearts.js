// Hearts: a guest in the shared album, or a gallery visitor, hearts a
// photo from its large view (one heart per guest or browser and photo,
// tapped again to take it back); the tiles show how many hearts a photo
// has. base is the page's API base (/api/e/<slug> or /api/g/<token>); t
// is the page's catalogue (guest section).
import { api, h } from './lib.js';

/** heartsOf returns the page's hearts: which photos this viewer hearted,
 * loaded for a list with load(), a tile's badge and the large view's
 * button. */
export function heartsOf(base, t, onError) {
  const given = new Set();
  const countText = (n) => t('hearts', { n });
  // badge is a tile's count: nothing without hearts.
  const badge = (p) => (p.hearts > 0 ? h('span', { class: 'hearts-badge', dataset: { hearts: p.hearts } }, '♥ ' + p.hearts) : null);
  // refresh puts a photo's new count on each of its tiles on the page.
  const refresh = (p) => {
    document.querySelectorAll(`.tile[data-id="${CSS.escape(p.id)}"]`).forEach((tile) => {
      const old = tile.querySelector('.hearts-badge');
      const fresh = badge(p);
      if (old && fresh) old.replaceWith(fresh);
      else if (old) old.remove();
      else if (fresh) tile.append(fresh);
    });
  };
  return {
    badge,
    refresh,
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
    /** button is the large view's heart of p: pressed when hearted. */
    button(p) {
      const b = h('button', { type: 'button', class: 'small heart', id: 'heart' });
      const draw = () => {
        const on = given.has(p.id);
        b.setAttribute('aria-pressed', on ? 'true' : 'false');
        b.setAttribute('aria-label', (on ? t('heartTakeBack') : t('heartGive')) + (p.hearts ? ', ' + countText(p.hearts) : ''));
        b.textContent = (on ? '♥' : '♡') + (p.hearts ? ' ' + p.hearts : '');
      };
      b.addEventListener('click', async () => {
        const on = !given.has(p.id);
        b.disabled = true;
        try {
          const res = await api(`${base}/photos/${encodeURIComponent(p.id)}/heart`, { method: on ? 'PUT' : 'DELETE' });
          p.hearts = res.hearts;
          if (res.hearted) given.add(p.id); else given.delete(p.id);
          refresh(p);
        } catch (e) {
          if (onError) onError(e);
        }
        b.disabled = false;
        draw();
        b.focus();
      });
      draw();
      return b;
    },
  };
}

/** lovedFirst returns list sorted by hearts, most first, keeping the
 * list's own order among equals. */
export function lovedFirst(list) {
  return list.map((p, i) => [p, i]).sort((a, b) => (b[0].hearts || 0) - (a[0].hearts || 0) || a[1] - b[1]).map(([p]) => p);
}
