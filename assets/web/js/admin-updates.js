// @ts-check
// The Updates screen of the console (owners): check for a release, apply
// it with a backup first, follow the download, and see the result after
// the box restarted into it (or rolled back). docs/decisions.md, "Updates".
import { h, clear, toast, fmtTime, fmtBytes, sleep } from './lib.js';
import { call, errText, busy, confirmDo } from './admin-ui.js';
import { t } from './admin-i18n.js';

const card = (title, ...kids) => h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, title), kids);

/** updatesPart draws the Updates screen into box. */
export async function updatesPart(box) {
  draw(box, await call('/api/admin/updates'));
}

function draw(box, u) {
  const latest = !u.latest ? '' : ' ' + (u.checkedAt ? t('Newest release: {version} (checked {at}).', { version: u.latest, at: fmtTime(u.checkedAt) }) : t('Newest release: {version}.', { version: u.latest }));
  const status = h('div', { 'aria-live': 'polite' });
  const backup = h('input', { type: 'checkbox', checked: true });
  const actions = !u.checkEnabled ? noSource() : h('div', { class: 'row' },
    h('button', {
      onclick: async (e) => {
        const res = await busy(e.currentTarget, call('/api/admin/updates/check', { method: 'POST' }), (err) => toast(errText(err), 'bad'));
        if (res) { toast(t('Checked')); updatesPart(box); }
      },
    }, t('Check now')),
    u.available && !u.applying && !waiting(u) ? [
      h('label', { class: 'row small' }, backup, t('Make a backup first')),
      h('button', { class: 'primary', onclick: (e) => apply(box, u, e.currentTarget, !backup.checked, status) }, t('Install {version}', { version: u.available })),
    ] : null);
  const states = stateNames();
  clear(box, card(t('Software'),
    u.current ? h('p', null, t('Running {version}.', { version: u.current }), latest) : null,
    u.checkEnabled && u.latest && !u.available ? h('p', { class: 'muted small' }, t('This box is up to date.')) : null,
    u.checkEnabled && !u.latest ? h('p', { class: 'muted small' }, t('Not checked yet: “Check now” asks the update address whether a newer version is out.')) : null,
    lastResult(u), actions, status),
  u.history.length ? card(t('History'), h('table', null, h('tbody', null, u.history.map((x) => h('tr', null,
    h('td', null, fmtTime(x.at)), h('td', null, `${x.from} → ${x.version}`), h('td', null, states[x.status] || x.status),
    h('td', { class: 'muted small' }, x.error || '')))))) : null,
  stateHelp(u));
  if (u.applying) follow(box, u.applying.version, status, u.updater);
}

/** stateNames are the words of the history's states. */
const stateNames = () => ({ running: t('downloading'), failed: t('failed'), installed: t('installed, waiting for the restart'), ok: t('running well'), rolled_back: t('rolled back') });

/**
 * noSource says, for a host, why this box does not look for updates and
 * how a new version reaches it anyway.
 */
function noSource() {
  return h('div', { id: 'updates-help', class: 'banner' },
    h('p', { style: 'margin-top:0' }, h('strong', null, t('This box does not look for updates by itself: no update address is set.'))),
    h('p', null, t('A new version reaches the box in one of two ways:')),
    h('ul', null,
      h('li', null, t('Whoever set up the box adds the address where new versions are published (UPDATE_URL in /etc/default/eventbox) and restarts it. From then on this screen checks for new versions and installs one with a button, after a backup.')),
      h('li', null, t('Or they install the new version by hand, as the box was installed (a new package or a new card image). Download a backup first (Settings → Backup).'))),
    h('p', { style: 'margin-bottom:0' }, t('Nothing else is needed: the box works as it is, offline too.')));
}

/** stateHelp says what each state of an update means. */
function stateHelp(u) {
  const names = stateNames();
  const help = [
    ['running', t('The box is fetching the new version. The party goes on meanwhile.')],
    ['installed', u.updater === 'none' ? t('The new version is on the box and runs from the next start of eventbox.') : t('The new version is on the box; the box restarts into it (guests may see it gone for a few seconds).')],
    ['ok', t('The new version started and answered its health check: it is the one running.')],
    ['rolled_back', t('The new version did not start well, so the box put the previous one back by itself. Nothing was lost.')],
    ['failed', t('The download or its checks failed (a signature, a size or a checksum did not match): nothing was changed.')],
  ];
  return h('details', { class: 'section', id: 'update-states' }, h('summary', null, t('What the states mean')),
    h('div', null, h('dl', { class: 'states' }, help.map(([k, text]) => [h('dt', null, names[k]), h('dd', null, text)]))));
}

/** waiting reports whether the available version is installed and waits for a restart. */
const waiting = (u) => u.history.length > 0 && u.history[0].status === 'installed' && u.history[0].version === u.available;

/** lastResult says how the newest attempt ended, when it has. */
function lastResult(u) {
  const a = u.history[0];
  if (!a) return null;
  switch (a.status) {
    case 'ok': return a.version === u.current ? h('p', { class: 'small' }, t('Updated to {version} on {at}.', { version: a.version, at: fmtTime(a.at) })) : null;
    case 'rolled_back': return h('p', { class: 'error' }, t('{version} did not start well, so {from} was put back.', { version: a.version, from: a.from }), a.error ? ` (${a.error})` : '');
    case 'failed': return h('p', { class: 'error' }, t('Installing {version} failed: {error}. Nothing was changed.', { version: a.version, error: a.error || '?' }));
    case 'installed': return u.updater === 'none' ? h('p', null, t('{version} is installed: it runs from the next start of eventbox (this box cannot restart itself).', { version: a.version })) : null;
  }
  return null;
}

async function apply(box, u, button, skipBackup, status) {
  if (!confirmDo(t('Install {version}?', { version: u.available }) + ' ' + (skipBackup ? t('No backup is made.') : t('The box makes a backup first.')) +
    (u.updater !== 'none' ? ' ' + t('It then restarts; guests may see it gone for a few seconds.') : ''))) return;
  const send = (skip) => call('/api/admin/updates/apply', { method: 'POST', body: { version: u.available, skipBackup: skip } });
  let res = await busy(button, send(skipBackup).catch((err) => {
    if (err.code === 'backup_unavailable' && confirmDo(t('This box has no backup service. Install without a backup?'))) return send(true);
    throw err;
  }), (err) => toast(errText(err), 'bad'));
  if (!res) return;
  button.disabled = true;
  clear(status, h('p', null, res.backup ? t('Backup {name} made; downloading…', { name: res.backup }) : t('Downloading…')));
  follow(box, u.available, status, u.updater);
}

/**
 * follow polls the box while version is downloaded and installed, then,
 * when the box restarts itself, until it answers again, and redraws with
 * the result: running the new version, or rolled back.
 */
async function follow(box, version, status, updater) {
  const bar = h('progress', { max: 1, value: 0, style: 'width:100%' });
  const note = h('p', { class: 'small' }, t('Waiting to start…'));
  clear(status, bar, note);
  let restarting = false;
  for (let i = 0; box.isConnected && i < 900; i++) {
    await sleep(restarting ? 2000 : 1000);
    let u;
    try {
      u = await call('/api/admin/updates');
    } catch (err) {
      if (!restarting && err.code !== 'network') return toast(errText(err), 'bad');
      clear(note, t('The box is restarting…'));
      continue;
    }
    const a = u.applying;
    if (a) {
      if (a.total) { bar.max = a.total; bar.value = a.done; clear(note, t('Downloading: {done} of {total}', { done: fmtBytes(a.done), total: fmtBytes(a.total) })); }
      if (a.error && a.status === 'queued') clear(note, t('The download failed ({error}); it is tried again in a moment.', { error: a.error }));
      continue;
    }
    const last = u.history[0] || {};
    if (u.current === version || last.status === 'rolled_back' || last.status === 'failed' || updater === 'none') {
      if (u.current === version) toast(t('Now running {version}.', { version }));
      return draw(box, u);
    }
    if (!restarting) { restarting = true; bar.removeAttribute('value'); clear(note, t('Installed. The box restarts into it now…')); }
  }
}
