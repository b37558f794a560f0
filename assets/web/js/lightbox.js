// @ts-check
// A full-screen photo viewer shared by the console, the guest page and the
// gallery: arrows, Escape and swipes move through the list.
import { h, clear, mediaURL, safeImg } from './lib.js';

/**
 * openLightbox shows items[index]. items are PhotoDto-like objects with id
 * and optional video. opts:
 *   caption(p) → string or node under the photo,
 *   name(p) → the item's name for screen readers (by whom, when); the
 *     viewer is named with it and its place, "Photo · by Sophie, 2 / 6",
 *   actions(p, close) → nodes for the bar (e.g. a download link),
 *   labels { close, prev, next, play, pause, unavailable } for the
 *     buttons' accessible names and the placeholder of a photo that
 *     cannot be shown,
 *   slideshow: true offers a full-screen slideshow (play / pause),
 *   autoplay: true starts it at once,
 *   keys { key: action } and onKey(action, p, close): more keyboard
 *     shortcuts (e.g. the console's a, h, f).
 * The viewer is opaque and covers the whole page. It returns a function
 * that closes it; its redraw() draws the current item again (after its
 * state changed).
 */
export function openLightbox(items, index, opts = {}) {
  const labels = { close: 'Close', prev: 'Previous', next: 'Next', play: 'Slideshow', pause: 'Pause', unavailable: 'This photo cannot be shown right now.', ...(opts.labels || {}) };
  let playing = null;
  const playBtn = opts.slideshow ? h('button', { class: 'small', id: 'slideshow', onclick: () => toggle() }, '▶ ' + labels.play) : null;
  let i = index;
  const stage = h('div', { class: 'stage' });
  const info = h('div', { class: 'grow small' });
  const tools = h('div', { class: 'row' });
  const box = h('div', { class: 'lightbox', role: 'dialog', 'aria-modal': 'true', tabindex: -1 },
    h('div', { class: 'bar' },
      h('button', { class: 'small', 'aria-label': labels.close, onclick: () => close() }, '✕'), info, playBtn, tools),
    stage,
    h('div', { class: 'bar' },
      h('button', { 'aria-label': labels.prev, onclick: () => move(-1) }, '‹'),
      h('span', { class: 'small count' }),
      h('button', { 'aria-label': labels.next, onclick: () => move(1) }, '›')));
  const show = () => {
    const p = items[i];
    const media = p.video
      ? h('video', { src: mediaURL(p.id, 'play'), poster: mediaURL(p.id, 'display'), controls: true, playsinline: true, preload: 'metadata' })
      : safeImg({ src: mediaURL(p.id, 'display') }, (img) => img.replaceWith(h('p', { class: 'ph center' }, labels.unavailable)));
    clear(stage, media);
    clear(info, opts.caption ? opts.caption(p) : '');
    clear(tools, opts.actions ? opts.actions(p, close) : []);
    const at = `${i + 1} / ${items.length}`;
    box.querySelector('.count').textContent = at;
    box.setAttribute('aria-label', opts.name ? `${opts.name(p)}, ${at}` : at);
    // Warm the next photo so swiping feels instant on a slow hotspot.
    const n = items[i + 1];
    if (n && !n.video) new Image().src = mediaURL(n.id, 'display');
  };
  const move = (d) => {
    const j = i + d;
    if (j < 0 || j >= items.length) return;
    i = j;
    show();
  };
  // The slideshow: full screen, the bars hidden, a photo every 4 s; a
  // touch, a click or a key stops it.
  const stopShow = () => {
    if (!playing) return;
    clearInterval(playing);
    playing = null;
    box.classList.remove('show');
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    if (playBtn) playBtn.textContent = '▶ ' + labels.play;
  };
  const toggle = () => {
    if (playing) return stopShow();
    box.classList.add('show');
    if (box.requestFullscreen) box.requestFullscreen().catch(() => {});
    playing = setInterval(() => {
      if (opts.more && i >= items.length - 2) opts.more();
      if (i < items.length - 1) move(1); else { i = -1; move(1); }
    }, 4000);
    if (playBtn) playBtn.textContent = '❚❚ ' + labels.pause;
  };
  box.addEventListener('click', (e) => { if (playing && e.target.closest('.stage')) stopShow(); });
  const key = (e) => {
    if (playing) { e.preventDefault(); stopShow(); return; }
    if (e.key === 'Escape') close();
    else if (e.key === 'ArrowLeft') move(-1);
    else if (e.key === 'ArrowRight') move(1);
    else if (opts.keys && opts.onKey && !e.ctrlKey && !e.metaKey && !e.altKey && opts.keys[e.key.toLowerCase()]) {
      e.preventDefault();
      opts.onKey(opts.keys[e.key.toLowerCase()], items[i], close);
    }
  };
  let x0 = null;
  stage.addEventListener('touchstart', (e) => { x0 = e.touches[0].clientX; }, { passive: true });
  stage.addEventListener('touchend', (e) => {
    if (x0 === null) return;
    const dx = e.changedTouches[0].clientX - x0;
    x0 = null;
    if (Math.abs(dx) > 50) move(dx < 0 ? 1 : -1);
  });
  const close = () => {
    stopShow();
    document.removeEventListener('keydown', key);
    box.remove();
    document.body.style.overflow = '';
    if (opts.onClose) opts.onClose();
  };
  close.redraw = () => { if (box.isConnected) show(); };
  document.addEventListener('keydown', key);
  document.body.style.overflow = 'hidden';
  document.body.append(box);
  box.focus();
  show();
  if (opts.autoplay && playBtn) toggle();
  return close;
}
