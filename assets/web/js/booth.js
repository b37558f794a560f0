// @ts-check
// The photo booth: /e/<slug>?booth=<key> on a tablet or a laptop with a
// camera. The device registers with POST /api/e/:slug/booth { key }, shows
// the camera full screen, and on a touch, a key or a "trigger" message of
// GET /api/e/:slug/booth/events (the box's GPIO button) counts down, takes
// the photo and sends it through the same retrying queue as a guest's.
//
// Browsers give the camera (getUserMedia) only to secure pages: https, or
// http://localhost on the box itself. On plain http the title screen says
// exactly what to do: trust the box's CA once (/ca.mobileconfig on an
// iPad, /ca.crt elsewhere) and open the same link over https
// (docs/decisions.md, "HTTPS on the box"); meanwhile a touch opens the
// device's camera app.
import { api, h, clear } from './lib.js';
import { UploadQueue } from './queue.js';

const COUNTDOWN = 3;

/** boothPage takes over the page for the booth of slug with key. */
export async function boothPage({ app, slug, key, data, t }) {
  const base = '/api/e/' + encodeURIComponent(slug);
  document.body.className = 'dark';
  const status = h('div', { class: 'status', id: 'booth-status', role: 'status' });
  const say = (s) => { status.textContent = s; };
  const screen = h('div', { class: 'booth' }, status);
  clear(app, screen);
  try {
    await api(base + '/booth', { method: 'POST', body: { key } });
  } catch (e) {
    say(e.status === 403 ? t('boothBadKey') : e.code === 'network' ? t('offline') : t('genericError'));
    return;
  }
  const queue = new UploadQueue(slug, { concurrency: 1 });
  queue.addEventListener('stopped', (/** @type {CustomEvent} */ e) => {
    say(e.detail.code === 'uploads_closed' ? t('uploadsClosed') : t('genericError'));
  });
  queue.addEventListener('uploaded', (/** @type {CustomEvent} */ e) => {
    if (!busy) say(t('boothSent'));
    if (e.detail && e.detail.id) printer.offer(e.detail.id);
  });
  queue.load();
  const printer = boothPrinter(base, screen, t);

  const start = h('button', { class: 'primary big', id: 'booth-start', style: 'margin:auto' }, t('boothStart'));
  const title = h('div', { style: 'text-align:center;padding-top:14vh' }, h('h1', null, data.event.name), start,
    window.isSecureContext ? null : httpsHelp(data.event.https, t));
  screen.prepend(title);
  say(t('boothTouch'));
  await new Promise((resolve) => start.addEventListener('click', resolve, { once: true }));
  title.remove();
  if (document.documentElement.requestFullscreen) document.documentElement.requestFullscreen().catch(() => {});
  if (navigator.wakeLock) navigator.wakeLock.request('screen').catch(() => {});

  const video = h('video', { autoplay: true, muted: true, playsinline: true });
  const over = h('div', { class: 'over' });
  const flash = h('div', { class: 'flash' });
  screen.prepend(video, over, flash);
  let stream = null;
  if (navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'user', width: { ideal: 1920 }, height: { ideal: 1080 } }, audio: false });
      video.srcObject = stream;
      await video.play().catch(() => {});
    } catch {
      stream = null;
    }
  }
  // No live camera: a touch opens the device's camera app instead.
  const fallback = h('input', { type: 'file', accept: 'image/*', capture: 'user', hidden: true });
  fallback.addEventListener('change', () => {
    if (fallback.files.length) { queue.add([...fallback.files]); say(t('boothSending')); }
    fallback.value = '';
  });
  screen.append(fallback);
  // Without a secure page the browser offers no camera at all: say what
  // works (the camera app on a touch) and how to get the live one.
  const noCamera = () => (window.isSecureContext ? t('boothNoCamera') : t('boothHttpsWhy'));
  if (!stream) say(noCamera());

  let busy = false;
  const shoot = async () => {
    if (busy) return;
    if (!stream) { fallback.click(); return; }
    busy = true;
    try {
      say(t('boothReady'));
      for (let n = COUNTDOWN; n > 0; n--) {
        clear(over, h('div', { class: 'count' }, String(n)));
        await new Promise((r) => setTimeout(r, 1000));
      }
      clear(over);
      const canvas = document.createElement('canvas');
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      canvas.getContext('2d').drawImage(video, 0, 0);
      flash.classList.add('on');
      requestAnimationFrame(() => requestAnimationFrame(() => flash.classList.remove('on')));
      const blob = await new Promise((r) => canvas.toBlob(r, 'image/jpeg', 0.92));
      if (!blob) throw new Error('no frame');
      const file = new File([blob], `booth-${Date.now()}.jpg`, { type: 'image/jpeg' });
      const url = URL.createObjectURL(blob);
      const shot = h('div', { class: 'shot', style: `background-image:url("${url}")` });
      screen.append(shot);
      say(t('boothSending'));
      await queue.add([file]);
      await new Promise((r) => setTimeout(r, 2500));
      shot.remove();
      URL.revokeObjectURL(url);
      say(queue.pending ? t('boothSending') : t('boothSent'));
    } catch {
      say(t('genericError'));
    } finally {
      busy = false;
      clear(over);
    }
  };
  screen.addEventListener('click', shoot);
  document.addEventListener('keydown', (e) => { if (!e.repeat) shoot(); });

  // The box's button: Server-Sent Events, reconnecting by themselves.
  if (window.EventSource) {
    const es = new EventSource(base + '/booth/events');
    const onTrigger = () => shoot();
    es.addEventListener('trigger', onTrigger);
    es.onmessage = (e) => {
      try {
        if (JSON.parse(e.data).type === 'trigger') onTrigger();
      } catch { /* not a JSON message */ }
    };
  }
  say(stream ? t('boothTouch') : noCamera());
  // Touches, keys and the button are heard from now on.
  screen.dataset.ready = 'true';
}

/** problemKeys name what the printer needs in the catalogue. */
const problemKeys = {
  paper: 'boothPrinterPaper', ink: 'boothPrinterInk', jam: 'boothPrinterJam', offline: 'boothPrinterOffline',
  paused: 'boothPrinterPaused', cover: 'boothPrinterCover', other: 'boothPrinterOther',
};

/**
 * boothPrinter shows the booth's printing line (GET booth/printing, every
 * few seconds: "Printing… (2 in the queue)" and what the printer needs)
 * and, when the settings give the booth copies, a print button over each
 * new photo for a while (POST booth/print). It answers { offer(photoId) }.
 */
function boothPrinter(base, screen, t) {
  const line = h('div', { class: 'print-line', id: 'booth-printing', role: 'status', hidden: true });
  const bar = h('div', { class: 'print-bar', id: 'booth-print', hidden: true });
  // A touch on the line or the bar is not a touch to take a photo.
  for (const el of [line, bar]) el.addEventListener('click', (e) => e.stopPropagation());
  screen.append(line, bar);
  let state = { enabled: false, copies: 0 };
  let hideBar = 0;
  const show = (s) => {
    state = s;
    const kids = [];
    if (s.printing) kids.push(h('span', null, s.queued ? t('boothPrintingQueue', { n: s.queued }) : t('boothPrinting')));
    else if (s.queued) kids.push(h('span', null, t('boothPrintsWaiting', { n: s.queued })));
    if (s.problem) kids.push(h('strong', { class: 'problem' }, t(problemKeys[s.problem] || 'boothPrinterOther')));
    line.replaceChildren(...kids);
    line.classList.toggle('bad', Boolean(s.problem));
    line.hidden = !s.enabled || kids.length === 0;
  };
  const poll = async () => {
    if (document.hidden) return;
    try {
      show(await api(base + '/booth/printing'));
    } catch { /* the next poll tries again */ }
  };
  poll();
  setInterval(poll, 3000);
  return {
    offer(photoId) {
      if (!state.enabled || !state.copies) return;
      const buttons = [];
      for (let n = 1; n <= state.copies; n++) {
        const b = h('button', { class: n === 1 ? 'primary' : '', type: 'button', 'aria-label': t('boothPrintN', { n }) }, n === 1 ? t('boothPrint') : t('boothPrint') + ' ×' + n);
        b.addEventListener('click', async () => {
          bar.hidden = true;
          try {
            await api(base + '/booth/print', { method: 'POST', body: { photoId, copies: n } });
            poll();
          } catch { /* the line shows what the printer says */ }
        });
        buttons.push(b);
      }
      bar.replaceChildren(h('span', null, t('boothPrintAsk')), ...buttons);
      bar.hidden = false;
      clearTimeout(hideBar);
      hideBar = setTimeout(() => { bar.hidden = true; }, 15000);
    },
  };
}

/**
 * httpsHelp explains, on a page served over plain http, how this device
 * gets its camera: trust the box's certificate authority once, then open
 * the same page over https. https is the public event's https field.
 */
function httpsHelp(https, t) {
  const box = h('div', { class: 'card', id: 'booth-https', style: 'text-align:left;max-width:min(34em, calc(100% - 24px));margin:24px auto' },
    h('p', null, t('boothHttpsWhy')));
  if (!https) {
    box.append(h('p', null, t('boothHttpsOff')));
    return box;
  }
  const secure = new URL(location.href);
  secure.protocol = 'https:';
  secure.port = https.port === 443 ? '' : String(https.port);
  const steps = h('ol');
  if (https.caURL) {
    steps.append(h('li', null, t('boothHttpsTrust'), ' ',
      h('a', { href: '/ca.mobileconfig' }, 'iPad / iPhone'), ' · ',
      h('a', { href: https.caURL }, 'Android, Windows, Mac')));
  }
  steps.append(h('li', null, h('a', { href: secure.href, id: 'booth-https-link' }, t('boothHttpsOpen'))));
  box.append(steps);
  return box;
}
