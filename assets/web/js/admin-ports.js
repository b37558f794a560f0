// @ts-check
// The Network screen's "Radios and ports" card (owners): every Wi-Fi radio
// and Ethernet port of the box with what it does and its phones; which
// Ethernet port serves guests' access points (none by default: every port
// is for the home internet) and which radios carry the hotspot (PUT
// /api/admin/network/ports); and, when several browsers come from one
// address, that an access point hides its phones behind it (router mode)
// and what to do.
import { h, toast } from './lib.js';
import { call, field, check, select, showErrors, busy, confirmDo } from './admin-ui.js';
import { t } from './admin-i18n.js';

/** kindText names a radio or port. */
function kindText(p) {
  if (p.kind === 'wifi') return p.usb ? t('Wi-Fi radio on USB') : t('Wi-Fi radio');
  return t('Ethernet port');
}

/** useText says what a radio or port does. */
function useText(p) {
  return {
    hotspot: t('Hotspot'),
    guests: t("Guests' access points"),
    home: t('Home internet'),
  }[p.use] || t('Not used');
}

/** portsCard is the card; done is called after a change is saved. */
export function portsCard(ports, done) {
  const list = h('ul', { class: 'plain', id: 'net-ports', style: 'margin:0 0 12px;padding:0;list-style:none' },
    ports.list.map((p) => h('li', { class: 'spread', dataset: { device: p.device }, style: 'padding:6px 0;border-bottom:1px solid var(--line, #ddd);gap:8px;flex-wrap:wrap' },
      h('span', null, h('strong', null, p.device), ' ', h('span', { class: 'muted small' }, kindText(p))),
      h('span', null,
        h('span', { class: p.use === 'hotspot' || p.use === 'guests' ? 'pill good' : 'pill' }, useText(p)),
        p.phones === null ? null : h('span', { class: 'small', style: 'margin-left:8px' }, t('Phones: {n}', { n: p.phones }))))));
  const ethernet = ports.list.filter((p) => p.kind === 'ethernet');
  const radios = ports.list.filter((p) => p.kind === 'wifi');
  const guestPort = select('guestPort', [['', t('None (home internet)')]].concat(ethernet.map((p) => [p.device, p.device])), ports.guestPort);
  const radioChecks = radios.map((p) => check('hotspotRadios', p.device + ' · ' + kindText(p), ports.hotspotRadios.includes(p.device)));
  radioChecks.forEach((c, i) => { c.querySelector('input').value = radios[i].device; });
  const form = h('form', { novalidate: true, id: 'ports-form' },
    ethernet.length ? field('guestPort', t("Ethernet port for guests' access points"), guestPort,
      t("Set the access points to bridge or access-point mode and plug them in here. The port then no longer reaches the internet; if you reach this console through it, you lose it: come back on the box's Wi-Fi.")) : null,
    radios.length > 1 ? h('fieldset', { class: 'field', dataset: { field: 'hotspotRadios' }, style: 'border:0;padding:0;margin:0 0 12px' },
      h('legend', { style: 'padding:0;font-weight:600' }, t('Radios that carry the hotspot')),
      h('div', { class: 'hint small muted' }, t('A second radio carries a second hotspot with the same name and password.')),
      radioChecks, h('div', { class: 'err' })) : null,
    h('button', { class: 'primary', type: 'submit' }, t('Save')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const body = {};
    if (ethernet.length) body.guestPort = guestPort.value;
    if (radios.length > 1) body.hotspotRadios = radioChecks.map((c) => c.querySelector('input')).filter((i) => i.checked).map((i) => i.value);
    if (body.guestPort && body.guestPort !== ports.guestPort &&
        !confirmDo(t("Set {port} for guests' access points? It stops being the box's way to the internet.", { port: body.guestPort }))) return;
    if (await busy(form.querySelector('[type=submit]'), call('/api/admin/network/ports', { method: 'PUT', body }), (err) => showErrors(form, err))) {
      toast(t('Saved'));
      done();
    }
  });
  const shared = ports.shared.map((s) => h('div', { class: 'banner', role: 'status', dataset: { address: s.address } },
    t('Several phones come from one address ({address}: {n} browsers). An access point there hides its phones behind one address (router mode), so the box\'s limits hold them back together. Set it to bridge or access-point mode.', { address: s.address, n: s.devices })));
  return h('div', { class: 'card', id: 'ports-card' }, h('h2', { style: 'margin-top:0' }, t('Radios and ports')),
    h('div', { id: 'net-shared' }, shared),
    h('p', { class: 'small muted', style: 'margin-top:0' }, t('The box\'s own radio holds only a few phones at once. For a larger party, plug access points into an Ethernet port, or add a USB Wi-Fi adapter.')),
    list, (ethernet.length || radios.length > 1) ? form : null);
}
