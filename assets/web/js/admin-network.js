// @ts-check
// The console's Network screen (owners): the hotspot with its Wi-Fi QR
// code, going online at home (the networks in range, pick one, its
// password), what the radio does with the hotspot then, the fall-back's
// promise, going back to the hotspot by hand, Ethernet, the internet,
// when mail, webhooks and the export last got through, and how many phones
// are on the hotspot of about how many its radio holds, with the evening's
// chart and the idle phones let go (admin-phones.js).
import { h, clear, toast, fmtTime } from './lib.js';
import { call, errText, field, check, select, showErrors, busy } from './admin-ui.js';
import { t } from './admin-i18n.js';
import { portsCard } from './admin-ports.js';
import { phonesEvening } from './admin-phones.js';

const card = (title, ...kids) => h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, title), kids);
const row = (label, value, id) => h('div', { class: 'spread', style: 'padding:4px 0' }, h('span', { class: 'muted' }, label), h('strong', { id }, value));

/** capabilityText says what the box will do with its hotspot once online. */
function capabilityText(c) {
  return {
    keeps: t('This box can stay on its hotspot while it is online: guests keep the box.'),
    follows: t('This box keeps its hotspot while it is online, on the home network\'s channel.'),
    stops: t('This box\'s radio cannot do both: the hotspot stops while the box is on the home Wi-Fi.'),
  }[c && c.hotspot] || t('The box cannot tell whether its radio can do both: the hotspot may stop while it is online.');
}

/** lastCard shows when mail, webhooks and the export last got through. */
function lastCard(last) {
  const when = (ms) => (ms ? fmtTime(ms) : t('never'));
  return card(t('Last deliveries'),
    row(t('Mail'), when(last.mail), 'net-last-mail'),
    row(t('Webhooks'), when(last.webhook), 'net-last-webhook'),
    row(t('Cloud export'), when(last.export), 'net-last-export'));
}

/** hotspotCard is the hotspot's form and its QR code. */
function hotspotCard(box, hs) {
  const name = h('input', { type: 'text', name: 'ssid', value: hs.ssid || '', maxlength: 32, autocapitalize: 'none' });
  const pass = h('input', { type: 'text', name: 'password', value: hs.password || '', maxlength: 63, autocapitalize: 'none', autocomplete: 'off', spellcheck: 'false' });
  const chan = select('channel', Array.from({ length: 13 }, (_, i) => [String(i + 1), String(i + 1)]), String(hs.channel || 6));
  const country = h('input', { type: 'text', name: 'country', value: hs.country || '', maxlength: 2, autocapitalize: 'characters', style: 'max-width:6em' });
  const on = check('on', t('Hotspot on'), hs.exists ? hs.on : true);
  const form = h('form', { novalidate: true, id: 'hotspot-form' },
    h('div', { class: 'two' },
      field('ssid', t('Wi-Fi name'), name),
      field('password', t('Password'), pass, t('8 to 63 characters. Empty makes the network open.')),
      field('channel', t('Channel'), chan),
      field('country', t('Country'), country, t('Two letters, such as FR. The Wi-Fi stays off until it is set.'))),
    on,
    h('p', { class: 'small muted' }, t('Phones on the hotspot lose the box for a few seconds when you save, then join it again by its new name and password.')),
    h('button', { class: 'primary', type: 'submit' }, t('Save')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const body = { ssid: name.value.trim(), password: pass.value, channel: Number(chan.value), country: country.value.trim().toUpperCase(), on: on.querySelector('input').checked };
    if (await busy(form.querySelector('[type=submit]'), call('/api/admin/network/hotspot', { method: 'PUT', body }), (err) => showErrors(form, err))) {
      toast(t('Saved'));
      networkPart(box);
    }
  });
  const state = hs.active ? h('span', { class: 'pill good', id: 'hotspot-state' }, t('Broadcasting')) : h('span', { class: 'pill', id: 'hotspot-state' }, t('Off'));
  const qr = hs.ssid ? h('figure', { class: 'center', style: 'margin:0 0 12px;display:flex;flex-direction:column;align-items:center;gap:4px' },
    h('img', { src: '/api/admin/network/qr?v=' + encodeURIComponent(hs.qrText), alt: t('Wi-Fi QR code of {name}', { name: hs.ssid }), id: 'hotspot-qr', width: 220, height: 220, style: 'max-width:100%;height:auto' }),
    h('figcaption', { class: 'small muted' }, t('Guests scan this to join the Wi-Fi.'))) : null;
  return h('div', { class: 'card' },
    h('div', { class: 'spread' }, h('h2', { style: 'margin:0' }, t('Hotspot')), state),
    hs.exists ? null : h('div', { class: 'banner' }, t('The box has no hotspot yet: save one here.')),
    qr, form);
}

/** homeCard is going online at home: the networks in range and the join. */
function homeCard(box, s) {
  const list = h('div', { id: 'wifi-list' });
  const status = h('div', { role: 'status' });
  const home = s.home;
  if (home) {
    let text;
    let cls = 'banner';
    if (home.joining) text = t('Joining {ssid}…', { ssid: home.ssid });
    else if (home.connected) { text = t('Online through {ssid}.', { ssid: home.ssid }); cls = 'banner good'; }
    else if (home.fellBack && !home.watching) { text = t('{ssid} could not be joined or was lost: the box is back on its hotspot.', { ssid: home.ssid }); cls = 'banner bad'; }
    else if (home.watching) text = t('Waiting for {ssid}…', { ssid: home.ssid });
    if (text) status.append(h('div', { class: cls, id: 'home-state' }, text, home.error ? h('div', { class: 'small mono' }, home.error) : null));
  }
  const pick = (n) => {
    const pw = h('input', { type: 'password', name: 'password', autocomplete: 'off', autocapitalize: 'none' });
    const form = h('form', { novalidate: true, id: 'join-form' },
      h('p', null, t('Join {ssid}', { ssid: n.ssid })),
      n.open ? h('p', { class: 'small muted' }, t('This network is open: no password.')) : field('password', t('Password of {ssid}', { ssid: n.ssid }), pw),
      h('div', { class: 'row' },
        h('button', { class: 'primary', type: 'submit' }, t('Join')),
        h('button', { type: 'button', onclick: () => clear(list, networks) }, t('Cancel'))));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      showErrors(form, null);
      const res = await busy(form.querySelector('[type=submit]'),
        call('/api/admin/network/wifi/join', { method: 'POST', body: { ssid: n.ssid, password: n.open ? '' : pw.value } }), (err) => showErrors(form, err));
      if (!res) return;
      clear(list, h('div', { class: 'banner', id: 'join-sent' },
        h('p', { style: 'margin-top:0' }, t('The box is joining {ssid}. Your phone may lose the box now: join {ssid} or the box\'s hotspot again, then come back to this page.', { ssid: res.ssid })),
        h('p', { class: 'small', style: 'margin-bottom:0' }, t('If the home Wi-Fi can\'t be joined or is lost, the box comes back on its hotspot within {n, plural, one {# minute} other {# minutes}}.', { n: Math.ceil(res.fallbackSeconds / 60) }))));
    });
    clear(list, form);
    if (!n.open) pw.focus();
  };
  let networks = null;
  const scan = h('button', {
    id: 'wifi-scan',
    onclick: async (e) => {
      const res = await busy(e.currentTarget, call('/api/admin/network/wifi'), (err) => clear(list, h('div', { class: 'banner bad' }, errText(err))));
      if (!res) return;
      networks = res.networks.length ? h('ul', { class: 'list' }, res.networks.map((n) => h('li', null,
        h('button', { class: 'spread', style: 'width:100%;text-align:start', dataset: { ssid: n.ssid }, onclick: () => pick(n) },
          h('span', null, h('strong', null, n.ssid), n.inUse ? h('span', { class: 'pill good', style: 'margin-inline-start:6px' }, t('connected')) : null),
          h('span', { class: 'small muted' }, (n.open ? t('open') : n.security) + ' · ' + n.signal + '%')))))
        : h('p', { class: 'muted' }, t('No Wi-Fi network in range.'));
      clear(list, networks);
    },
  }, t('Look for networks'));
  const back = h('button', {
    id: 'hotspot-back',
    onclick: async (e) => {
      if (await busy(e.currentTarget, call('/api/admin/network/hotspot/back', { method: 'POST' }), (err) => toast(errText(err)))) {
        toast(t('The hotspot is back.'));
        networkPart(box);
      }
    },
  }, t('Back to the hotspot'));
  return card(t('Going online at home'),
    h('p', null, t('Join your home Wi-Fi so that mail, webhooks and the cloud export can go out.')),
    h('p', { id: 'net-capability' }, capabilityText(s.capability)),
    h('p', { class: 'small', id: 'net-fallback' }, t('If the home Wi-Fi can\'t be joined or is lost, the box comes back on its hotspot within {n, plural, one {# minute} other {# minutes}}.', { n: Math.ceil(s.fallbackSeconds / 60) })),
    status,
    h('div', { class: 'row' }, scan, home ? back : null),
    list);
}

/** phonesLine says how many phones are on the Wi-Fi, and of about how many. */
function phonesLine(p) {
  if (p.connected === null) return t('The box cannot count the phones on its Wi-Fi now.');
  if (p.capacity === null) return t('{n, plural, one {# phone} other {# phones}} on the Wi-Fi; how many the radio holds is unknown.', { n: p.connected });
  return t('Phones on the Wi-Fi: {n} of about {max}', { n: p.connected, max: p.capacity });
}

/** radioLine names the radio and its firmware, as far as the box knows them. */
function radioLine(p) {
  const radio = p.chip ? 'CYW' + p.chip + (p.driver ? ' (' + p.driver + ')' : '') : p.driver;
  if (!radio) return t('Radio: unknown');
  return p.firmware ? t('Radio: {radio}, firmware {firmware}', { radio, firmware: p.firmware }) : t('Radio: {radio}', { radio });
}

/** phonesCard is the phones on the hotspot, the radio, and the owner's figure. */
function phonesCard(box, p) {
  const figure = h('input', { type: 'number', name: 'capacity', min: 1, max: 1000, step: 1, inputmode: 'numeric',
    value: p.setting === null ? '' : String(p.setting), placeholder: p.capacity === null ? '' : String(p.capacity), style: 'max-width:8em' });
  const form = h('form', { novalidate: true, id: 'phones-form' },
    field('capacity', t('About how many phones the radio holds'), figure, t('Leave it empty for the box\'s own figure.')),
    h('button', { class: 'primary', type: 'submit' }, t('Save')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const v = figure.value.trim();
    const body = { capacity: v === '' ? null : Number(v) };
    if (await busy(form.querySelector('[type=submit]'), call('/api/admin/network/phones', { method: 'PUT', body }), (err) => showErrors(form, err))) {
      toast(t('Saved'));
      networkPart(box);
    }
  });
  return card(t('Wi-Fi radio'),
    h('p', { id: 'net-phones', style: 'margin-top:0' }, h('strong', null, phonesLine(p))),
    p.nearlyFull ? h('div', { class: 'banner', id: 'net-phones-full', role: 'status' }, t('The Wi-Fi is nearly full: more guests cannot join until some leave.')) : null,
    p.firmwareBuild === 'standard' ? h('p', { class: 'small', id: 'net-phones-hint' }, t('This radio runs the standard firmware; Raspberry Pi\'s minimal firmware holds about 19–20 phones.')) : null,
    h('p', { class: 'small muted', id: 'net-radio' }, radioLine(p)),
    h('details', { id: 'phones-figure' }, h('summary', null, t('Give the figure by hand')), form));
}

/** linksCard is Ethernet and the internet. */
function linksCard(s) {
  const internet = { full: t('Reaches the internet'), limited: t('On a network, no internet'), portal: t('A sign-in page is in the way'), none: t('Not connected'), unknown: t('Cannot tell') }[s.internet] || s.internet;
  const eth = s.ethernet;
  const ethText = !eth ? t('No Ethernet port') : eth.connected ? t('Connected') : eth.state === 'unavailable' ? t('No cable') : t('Not connected');
  return card(t('Connections'),
    row(t('Internet'), h('span', { class: s.internet === 'full' ? 'pill good' : 'pill' }, internet), 'net-internet'),
    row(t('Ethernet'), ethText, 'net-ethernet'));
}

/** networkPart fills box with the Network screen. */
export async function networkPart(box) {
  const s = await call('/api/admin/network');
  if (!s.available) {
    return clear(box,
      h('div', { class: 'card', id: 'net-unavailable' }, h('h2', { style: 'margin-top:0' }, t('Network')),
        h('p', null, t('Not available on this machine: the Network screen needs NetworkManager, as on the box.'))),
      lastCard(s.lastDelivered));
  }
  clear(box, s.phones ? phonesCard(box, s.phones) : null, s.phones ? phonesEvening('net-evening', false) : null, s.ports ? portsCard(s.ports, () => networkPart(box)) : null,
    hotspotCard(box, s.hotspot), homeCard(box, s), linksCard(s), lastCard(s.lastDelivered));
}
