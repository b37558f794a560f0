// @ts-check
// Printing in the console: the Printing settings screen (owners: the
// printer, listed from the box's print server, the paper, what prints, a
// test page, the printers the print server sees with an Add for each, and
// the queue with what the printer reports and a cancel),
// an event's print layout and its album on the printer (eventPrintPanel),
// and a print button for moderation (printPhoto).
import { h, clear, toast, fmtTime, ApiError } from './lib.js';
import { call, errText, field, check, select, showErrors, busy } from './admin-ui.js';
import { t } from './admin-i18n.js';

/** paperNames names the papers in the console's language. */
const paperNames = () => ({
  postcard: t('10×15 cm postcard'), strips: t('2×6 in strips (two cut from a 4×6 in sheet)'), a6: t('A6'), a4: t('A4'),
});

/** problemText says what the printer needs. */
export const problemText = (p) => ({
  paper: t('The printer is out of paper.'), ink: t('The printer needs a new ink cassette or ribbon.'), jam: t('Paper is stuck in the printer.'),
  offline: t('The printer cannot be reached: is it on and plugged in?'), paused: t('The printer is paused or stopped.'),
  cover: t('A cover of the printer is open.'), other: t('The printer needs attention.'),
}[p] || t('The printer needs attention.'));

const PILL = { queued: 'warn', waiting: 'warn', printing: 'warn', done: 'good', failed: 'bad', cancelled: '' };
const statusNames = () => ({ queued: t('queued'), waiting: t('waiting for the printer'), printing: t('printing'), done: t('printed'), failed: t('failed'), cancelled: t('cancelled') });
const docNames = () => ({ photo: t('Photo'), test: t('Test page'), album: t('Album'), signage: t('Signs') });
const byNames = () => ({ booth: t('the booth'), host: t('a host'), auto: t('booth, automatically'), owner: t('an owner') });

/** printerLine shows the chosen printer's state and what it needs. */
function printerLine(p) {
  if (!p.settings.printer) return h('div', { class: 'banner', id: 'printer-state' }, t('No printer is chosen: the box does not print.'));
  if (!p.available) return h('div', { class: 'banner bad', id: 'printer-state' }, t('The box cannot reach its print server (CUPS).'));
  const pr = p.printer;
  const name = pr ? pr.info || pr.name : p.settings.printer;
  const state = pr ? { idle: t('ready'), printing: t('printing'), stopped: t('stopped') }[pr.state] || pr.state : t('unknown');
  return h('div', { class: 'banner ' + (p.problem ? 'bad' : 'good'), id: 'printer-state', role: 'status' },
    h('strong', null, name), ' · ', state,
    p.problem ? h('div', null, problemText(p.problem)) : null,
    pr && pr.message ? h('div', { class: 'small' }, t('The printer says: '), pr.message) : null);
}

/** addErrText says why a printer could not be listed or added. */
function addErrText(e) {
  if (!(e instanceof ApiError) || e.code !== 'printer_failed') return errText(e);
  switch (e.details.reason) {
    case 'not_authorized': return t('The print server does not let the box add printers: its eventbox user must be in the lpadmin group.');
    case 'no_driver': return t('The box has no driver for this printer.');
    case 'refused': return t('The print server did not add the printer. It said: {detail}', { detail: e.details.cups || '' });
  }
  return t('The box cannot reach its print server (CUPS).');
}

/** deviceKind says how the box reaches a printer it sees. */
function deviceKind(d) {
  if (/^usb:|^ipps?:\/\/(localhost|127\.0\.0\.1)[:/]/.test(d.uri)) return t('Connected by USB');
  if (/^(dnssd|ipps?):/.test(d.uri)) return t('On the network');
  return '';
}

/**
 * drawDevices lists the printers the print server sees without a queue,
 * each with an Add; once one is added, the screen is drawn again with it
 * in the printer list, picked.
 */
async function drawDevices(devBox, box) {
  clear(devBox, h('p', { class: 'muted', role: 'status' }, t('Looking for printers…')));
  let list;
  try {
    list = await call('/api/admin/printing/devices');
  } catch (e) {
    clear(devBox, h('p', { class: 'form-err', role: 'alert' }, addErrText(e)));
    return;
  }
  const again = h('button', { type: 'button', class: 'small', id: 'devices-again', onclick: () => drawDevices(devBox, box) }, t('Look again'));
  if (!list.available) {
    clear(devBox, h('div', { class: 'banner bad' }, t('The box cannot reach its print server (CUPS).')), again);
    return;
  }
  if (!list.devices.length) {
    clear(devBox, h('p', { class: 'muted' }, t('No other printer found. Plug the printer in by USB, switch it on, and look again.')), again);
    return;
  }
  const err = h('p', { class: 'form-err', role: 'alert' });
  clear(devBox,
    h('ul', { class: 'list', id: 'devices' }, list.devices.map((d) => {
      const label = d.info && d.info !== d.makeModel ? d.info : d.makeModel || d.info || d.uri;
      // The Add stays beside the printer's name, however narrow the phone.
      return h('li', { class: 'spread', style: 'flex-wrap:nowrap', dataset: { uri: d.uri } },
        h('span', { style: 'min-width:0;overflow-wrap:anywhere' }, h('strong', null, label),
          h('div', { class: 'small muted' }, [d.makeModel !== label ? d.makeModel : '', deviceKind(d)].filter(Boolean).join(' · '))),
        h('button', {
          type: 'button', class: 'primary small', style: 'flex:none', 'aria-label': t('Add {name}', { name: label }), onclick: async (e) => {
            err.textContent = '';
            const res = await busy(e.currentTarget, call('/api/admin/printing/printers', {
              method: 'POST', body: { name: d.name, uri: d.uri, info: label, makeModel: d.makeModel, deviceId: d.deviceId },
            }), (x) => { err.textContent = addErrText(x); });
            if (res) {
              toast(t('Printer added: {name}. It is picked above: save to print on it.', { name: label }));
              printingPart(box, res.printer.name);
            }
          },
        }, t('Add')));
    })), err, again);
}

/**
 * printingPart fills box with the Printing settings screen (owners);
 * picked is a printer just added, chosen in the form until saved.
 */
export async function printingPart(box, picked) {
  const [p, list] = await Promise.all([call('/api/admin/printing'), call('/api/admin/printing/printers')]);
  if (!p.available || !list.available) return noPrintServer(box);
  const s = p.settings;
  const choices = [['', t('None: printing off')], ...list.printers.map((q) => [q.name, q.info && q.info !== q.name ? `${q.info} (${q.name})` : q.name])];
  if (s.printer && !list.printers.some((q) => q.name === s.printer)) choices.push([s.printer, s.printer + ' · ' + t('not found')]);
  const printer = select('printer', choices, picked || s.printer || '');
  const paper = select('paper', p.papers.map((k) => [k, paperNames()[k] || k]), s.paper);
  const auto = check('autoBooth', t('Print every booth photo as it is taken'), s.autoBooth);
  const copies = select('boothCopies', [...Array(p.maxBoothCopies + 1).keys()].map((n) => [String(n), n ? t('Up to {n, plural, one {# copy} other {# copies}} a photo', { n }) : t('No print button on the booth')]), String(s.boothCopies));
  const hosts = check('hostPrint', t('Hosts may print any photo from moderation'), s.hostPrint);
  const body = () => ({
    printer: printer.value || null, paper: paper.value, autoBooth: auto.querySelector('input').checked,
    boothCopies: Number(copies.value), hostPrint: hosts.querySelector('input').checked,
  });
  const form = h('form', { novalidate: true, id: 'printing-form' },
    !list.printers.length ? h('div', { class: 'banner' }, t('The print server has no printer yet: plug a USB printer in (a Canon SELPHY, for one) and add it below.')) : null,
    h('div', { class: 'two' }, field('printer', t('Printer'), printer), field('paper', t('Paper'), paper, t('Each print is laid out at 300 dpi on this paper.'))),
    auto, field('boothCopies', t('Print button on the booth'), copies), hosts,
    h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit' }, t('Save')),
      h('button', {
        type: 'button', id: 'print-test', disabled: !s.printer, onclick: async (e) => {
          if (await busy(e.currentTarget, call('/api/admin/printing/test', { method: 'POST' }), (err) => showErrors(form, err))) {
            toast(t('Test page sent'));
            drawQueue(queueBox);
          }
        },
      }, t('Print a test page'))));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const res = await busy(form.querySelector('[type=submit]'), call('/api/admin/printing', { method: 'PUT', body: body() }), (err) => showErrors(form, err));
    if (res) { toast(t('Saved')); printingPart(box); }
  });
  const stateBox = h('div', null, printerLine(p));
  const queueBox = h('div', { id: 'print-queue' }, h('p', { class: 'muted' }, t('Loading…')));
  const devBox = h('div', { id: 'printer-devices' });
  clear(box,
    h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, t('Printing')),
      h('p', { class: 'muted small' }, t('The box prints through CUPS on a printer plugged into it: booth photos, photos the hosts pick, the album and the signs. Each event has its own layout, under its Downloads & end tab.')),
      stateBox, form),
    h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, t('Add a printer')),
      h('p', { class: 'muted small' }, t('The printers the box sees that are not set up yet: plugged in by USB, or on its network. Add one, then choose it above.')),
      devBox),
    h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, t('Print queue')), queueBox));
  drawDevices(devBox, box);
  await drawQueue(queueBox, stateBox);
  // While the screen is open, the queue and the printer's state follow.
  const timer = setInterval(() => {
    if (!box.isConnected || !queueBox.isConnected) { clearInterval(timer); return; }
    drawQueue(queueBox, stateBox).catch(() => {});
  }, 3000);
}

/**
 * noPrintServer is the Printing screen when the box cannot reach CUPS (a
 * machine without it, or CUPS stopped): one sentence saying what is
 * missing and what to do, a button to look again, and the queue when it
 * holds prints (they wait for CUPS).
 */
async function noPrintServer(box) {
  const queueBox = h('div', { id: 'print-queue' });
  clear(box,
    h('div', { class: 'card', id: 'printing-unavailable' }, h('h2', { style: 'margin-top:0' }, t('Printing')),
      h('p', { role: 'status' }, t('Printing needs the CUPS print server, which does not answer on this machine: install and start CUPS (the cups package), then retry.')),
      h('button', { type: 'button', class: 'small', id: 'printing-again', onclick: (e) => busy(e.currentTarget, printingPart(box)) }, t('Retry'))),
    queueBox);
  const q = await call('/api/admin/printing/queue').catch(() => null);
  if (q && q.prints.length && queueBox.isConnected) {
    clear(queueBox, h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, t('Print queue')), h('div')));
    await drawQueue(queueBox.querySelector('.card > div'));
  }
}

/** drawQueue lists the prints, newest first, with a cancel for those not done. */
async function drawQueue(box, stateBox) {
  let q;
  try {
    q = await call('/api/admin/printing/queue');
  } catch (e) {
    clear(box, h('p', { class: 'form-err' }, errText(e)));
    return;
  }
  if (stateBox) clear(stateBox, printerLine(q.printing));
  if (!q.prints.length) {
    clear(box, h('p', { class: 'muted' }, t('Nothing printed yet.')));
    return;
  }
  const active = (x) => ['queued', 'waiting', 'printing'].includes(x.status);
  clear(box,
    h('p', { class: 'small muted' }, q.pending ? t('Still to print: {n}, one at a time.', { n: q.pending }) : t('Nothing waiting.')),
    h('ul', { class: 'list' }, q.prints.map((x) => h('li', { class: 'spread', dataset: { status: x.status } },
      h('span', null,
        h('span', { class: 'pill ' + (PILL[x.status] || '') }, statusNames()[x.status] || x.status), ' ',
        h('strong', null, docNames()[x.document] || x.document), x.copies > 1 ? ' × ' + x.copies : '',
        h('div', { class: 'small muted' }, [fmtTime(x.createdAt), byNames()[x.by] || x.by].join(' · ')),
        // A waiting print waits for what the printer's line above says.
        x.error && x.status === 'failed' ? h('div', { class: 'small form-err' }, x.error) : null),
      active(x) ? h('button', {
        class: 'small danger', onclick: async (e) => {
          if (await busy(e.currentTarget, call('/api/admin/printing/queue/' + x.id, { method: 'DELETE' }))) drawQueue(box, stateBox);
        },
      }, t('Cancel')) : null))));
}

/**
 * eventPrintPanel fills box with an event's print layout (photo cropped
 * to fill or fitted, the frame, the gallery link's code) and a button
 * that sends the album to the printer.
 */
export async function eventPrintPanel(ev, box) {
  let l;
  try {
    l = await call(`/api/admin/events/${ev.id}/print-layout`);
  } catch (e) {
    clear(box, h('p', { class: 'form-err' }, errText(e)));
    return;
  }
  const photo = select('photo', [['crop', t('Cropped to fill the paper')], ['fit', t('Whole, on white')]], l.photo);
  const frame = check('frame', t('A frame with the event\'s name, date and logo'), l.frame);
  const qr = check('qr', t('A small QR code of the gallery'), l.qr);
  const form = h('form', { novalidate: true, id: 'print-layout' },
    field('photo', t('The photo'), photo), frame, qr,
    h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit' }, t('Save the layout')),
      h('button', {
        type: 'button', id: 'print-album', onclick: async (e) => {
          if (await busy(e.currentTarget, call(`/api/admin/events/${ev.id}/print`, { method: 'POST', body: { document: 'album' } }), (err) => showErrors(form, err))) toast(t('The album is on its way to the printer'));
        },
      }, t('Print the album (A4)'))));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showErrors(form, null);
    const res = await busy(form.querySelector('[type=submit]'), call(`/api/admin/events/${ev.id}/print-layout`, {
      method: 'PUT', body: { photo: photo.value, frame: frame.querySelector('input').checked, qr: qr.querySelector('input').checked },
    }), (err) => showErrors(form, err));
    if (res) toast(t('Saved'));
  });
  clear(box, form);
}

/** printSigns sends the event's signs of the query to the printer. */
export async function printSigns(ev, signs, button) {
  if (await busy(button, call(`/api/admin/events/${ev.id}/print`, { method: 'POST', body: { document: 'signage', signs } }))) toast(t('Sent to the printer'));
}

/** printPhoto sends one photo of the event to the printer (moderation). */
export async function printPhoto(ev, photoId, button) {
  if (await busy(button, call(`/api/admin/events/${ev.id}/print`, { method: 'POST', body: { photoId } }))) toast(t('Sent to the printer'));
}
