// @ts-check
// The phones on the box's Wi-Fi over the evening (GET /api/admin/phones),
// for every console account: the count now of about how many the radio
// holds, a chart of the last hours with the radio's figure as a line and
// a text alternative, the idle phones the box let go, and the notice every
// console page shows while the hotspot stays nearly full.
import { api, h, clear, fmtTime } from './lib.js';
import { t } from './admin-i18n.js';

const NETWORK = '/admin/settings/network';

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs, ...kids) {
  const el = document.createElementNS(SVG, tag);
  // style through the CSSOM: the console's CSP refuses style attributes.
  for (const [k, v] of Object.entries(attrs || {})) if (k === 'style') el.style.cssText = v; else el.setAttribute(k, String(v));
  for (const k of kids) if (k) el.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return el;
}

const look = () => api('/api/admin/phones');

/** countLine says how many phones are on the Wi-Fi, and of about how many. */
export function countLine(p) {
  if (p.connected === null) return t('The box cannot count the phones on its Wi-Fi now.');
  if (p.capacity === null) return t('{n, plural, one {# phone} other {# phones}} on the Wi-Fi; how many the radio holds is unknown.', { n: p.connected });
  return t('Phones on the Wi-Fi: {n} of about {max}', { n: p.connected, max: p.capacity });
}

/** shown are the samples the chart draws: the last hours with any. */
function shown(p) {
  const s = p.samples || [];
  if (!s.length) return [];
  const last = s[s.length - 1].at;
  const span = Math.max(3 * 3600e3, Math.min(last - s[0].at, 24 * 3600e3)); // at least 3 h
  return s.filter((x) => x.at >= last - span);
}

/** summary is the chart's text alternative: the peak, the time nearly full, the let-go. */
function summary(p, s) {
  if (!s.length) return t('No count yet: the box counts the phones on its Wi-Fi every minute.');
  let peak = s[0];
  let fullMin = 0;
  for (const x of s) {
    if (x.phones > peak.phones) peak = x;
    if (x.capacity && x.phones >= x.capacity - 1) fullMin += p.everySeconds / 60;
  }
  const parts = [t('Since {since}, the most phones on the Wi-Fi at once: {n} (at {time}).', { since: fmtTime(s[0].at), n: peak.phones, time: fmtTime(peak.at) })];
  parts.push(fullMin ? t('Time nearly full: about {m} min.', { m: Math.round(fullMin) }) : t('Never nearly full.'));
  return parts.join(' ');
}

/** chart draws the phones over time, the radio's figure as a dashed line. */
export function phonesChart(p) {
  const s = shown(p);
  const alt = h('p', { class: 'small muted', id: 'phones-chart-text' }, summary(p, s));
  if (s.length < 2) return h('div', { id: 'phones-chart' }, alt);
  const first = s[0].at;
  const last = s[s.length - 1].at;
  const peak = Math.max(4, ...s.map((x) => Math.max(x.phones, x.capacity || 0)));
  const step = peak > 40 ? 20 : peak > 20 ? 10 : peak > 8 ? 5 : 2;
  const top = Math.ceil((peak + 1) / step) * step;
  const W = 400; const H = 170; const L = 30; const R = 8; const T = 10; const B = 26;
  const x = (at) => L + (W - L - R) * (at - first) / Math.max(1, last - first);
  const y = (v) => T + (H - T - B) * (1 - v / top);
  const kids = [];
  for (let v = 0; v <= top; v += step) {
    kids.push(svg('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: '#d8d3cd', 'stroke-width': 1 }));
    kids.push(svg('text', { x: L - 5, y: y(v) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#5f5a55' }, String(v)));
  }
  const hourFmt = new Intl.DateTimeFormat(document.documentElement.lang || undefined, { hour: '2-digit', minute: '2-digit' });
  const ticks = 4;
  for (let i = 0; i <= ticks; i++) {
    const at = first + (last - first) * i / ticks;
    kids.push(svg('text', { x: x(at), y: H - 8, 'text-anchor': i === 0 ? 'start' : i === ticks ? 'end' : 'middle', 'font-size': 11, fill: '#5f5a55' }, hourFmt.format(new Date(at))));
  }
  // One path per run of samples: a gap (the hotspot down) breaks it.
  const gap = 2 * p.everySeconds * 1000;
  let phones = '';
  let cap = '';
  for (let i = 0; i < s.length; i++) {
    const cut = i === 0 || s[i].at - s[i - 1].at > gap;
    phones += `${cut ? 'M' : 'L'}${x(s[i].at).toFixed(1)},${y(s[i].phones).toFixed(1)}`;
    if (s[i].capacity) cap += `${cut || !s[i - 1].capacity ? 'M' : 'L'}${x(s[i].at).toFixed(1)},${y(s[i].capacity).toFixed(1)}`;
  }
  if (cap) kids.push(svg('path', { d: cap, fill: 'none', stroke: '#b3261e', 'stroke-width': 1.5, 'stroke-dasharray': '5 4', class: 'capacity' }));
  kids.push(svg('path', { d: phones, fill: 'none', style: 'stroke:var(--accent)', 'stroke-width': 2, 'stroke-linejoin': 'round', class: 'phones' }));
  for (const v of s) {
    if (v.letGo) kids.push(svg('circle', { cx: x(v.at), cy: y(v.phones), r: 3, fill: '#5f5a55' }, svg('title', null, t('Idle phones let go at {time}: {n}', { n: v.letGo, time: fmtTime(v.at) }))));
  }
  kids.push(svg('line', { x1: L, x2: W - R, y1: y(0), y2: y(0), stroke: '#5f5a55', 'stroke-width': 1 }));
  const label = t('Phones on the Wi-Fi over time, with about how many the radio holds as a dashed line');
  const legend = h('p', { class: 'small muted phones-legend' },
    h('span', { 'aria-hidden': 'true', style: 'display:inline-block;width:18px;border-top:2px solid var(--accent);vertical-align:middle' }), ' ', t('Phones'), ' \u00a0 ',
    h('span', { 'aria-hidden': 'true', style: 'display:inline-block;width:18px;border-top:2px dashed #b3261e;vertical-align:middle' }), ' ', t('About how many the radio holds'));
  return h('figure', { id: 'phones-chart', style: 'margin:0' },
    svg('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', role: 'img', 'aria-label': label, 'aria-describedby': 'phones-chart-text', class: 'phones-chart', style: 'display:block;max-height:260px' }, ...kids),
    h('figcaption', null, legend, alt));
}

/** letGoLine counts the idle phones the box let go. */
function letGoLine(p) {
  if (!p.letGoIdleSeconds) return t('The box does not let idle phones go.');
  return t('Idle phones let go to free a slot: {hour} in the last hour, {day} in the last 24 hours.', { hour: p.letGo.hour, day: p.letGo.day });
}

/**
 * crowdText is the notice while the hotspot stays nearly full: what it
 * means and what to do. owner: the link to the Network screen.
 */
function crowdText(p, owner) {
  return [
    h('strong', null, t('The Wi-Fi has been nearly full since {time}.', { time: fmtTime(p.crowdedSince) })), ' ',
    t('New guests cannot join it. Guests who have sent their photos can leave the Wi-Fi so others can join.'), ' ',
    p.letGoIdleSeconds ? [t('The box lets phones idle for {idle} min go by itself.', { idle: Math.round(p.letGoIdleSeconds / 60) }), ' '] : null,
    t('A party of this size wants an extra access point.'), ' ',
    owner ? h('a', { href: NETWORK }, t('See the Network screen.')) : t('An owner of the box can add one on the Network screen.'),
  ];
}

/**
 * phonesEvening is the card of the phones on the Wi-Fi over the evening,
 * looked at again every minute while it is on the page; withCount false
 * leaves out the count now (the Network screen says it above).
 */
export function phonesEvening(id = 'phones-evening', withCount = true) {
  const body = h('div', { 'aria-live': 'off' }, h('p', { class: 'muted' }, t('Loading…')));
  const el = h('section', { class: 'card', id, 'aria-labelledby': id + '-title' },
    h('h2', { style: 'margin-top:0', id: id + '-title' }, t('Phones on the Wi-Fi')), body);
  const draw = async () => {
    if (!el.isConnected && el.dataset.drawn) return false;
    try {
      const p = await look();
      clear(body,
        withCount ? h('p', { id: id + '-count', style: 'margin-top:0' }, h('strong', null, countLine(p))) : null,
        p.crowded ? h('div', { class: 'banner bad', id: id + '-crowded' }, t('Nearly full since {time}.', { time: fmtTime(p.crowdedSince) })) : null,
        phonesChart(p),
        h('p', { class: 'small muted', id: id + '-letgo' }, letGoLine(p)));
    } catch {
      clear(body, h('p', { class: 'muted' }, t('The box cannot count the phones on its Wi-Fi now.')));
    }
    el.dataset.drawn = '1';
    return true;
  };
  draw();
  const timer = setInterval(async () => { if (!(await draw())) clearInterval(timer); }, 60000);
  return el;
}

/**
 * crowdBanner returns the element that tells the hosts, on every console
 * page, while the hotspot has stayed nearly full; it looks again every
 * minute and goes as soon as the count drops. owner() says whether the
 * signed-in account is an owner (the Network screen is theirs).
 */
export function crowdBanner(owner = () => false) {
  const el = h('section', { class: 'banner bad', id: 'crowd-banner', role: 'status', hidden: true });
  let said = '';
  const check = async () => {
    try {
      const p = await look();
      el.hidden = !p.crowded;
      if (!p.crowded) { said = ''; return; }
      const now = p.crowdedSince + ':' + p.letGoIdleSeconds + ':' + owner();
      if (now !== said) { said = now; clear(el, crowdText(p, owner())); }
    } catch { /* signed out or offline: keep what is shown */ }
  };
  check();
  setInterval(check, 60000);
  return el;
}
