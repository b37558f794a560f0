// The Updates screen of the console (owners): check for a release, apply
// it with a backup first, follow the download, and see the result after
// the box restarted into it (or rolled back). docs/decisions.md, "Updates".
import { h, clear, toast, fmtTime, fmtBytes, sleep } from './lib.js';
import { call, errText, busy, confirmDo } from './admin-ui.js';

// Every English string of the screen, in one place for the translators.
const T = {
  title: 'Software',
  running: (v) => `Running ${v}.`,
  newest: (v, at) => ` Newest release: ${v}` + (at ? ` (checked ${at}).` : '.'),
  upToDate: 'This box is up to date.',
  checksOff: 'Update checks are off on this box (no UPDATE_URL is set).',
  check: 'Check now',
  checked: 'Checked',
  install: (v) => `Install ${v}`,
  backupFirst: 'Make a backup first',
  confirm: (v, backup, restarts) => `Install ${v}?` + (backup ? ' The box makes a backup first.' : ' No backup is made.') +
    (restarts ? ' It then restarts; guests may see it gone for a few seconds.' : ''),
  noBackup: 'This box has no backup service. Install without a backup?',
  queued: (b) => b ? `Backup ${b} made; downloading…` : 'Downloading…',
  downloading: (done, total) => `Downloading: ${fmtBytes(done)} of ${fmtBytes(total)}`,
  waiting: 'Waiting to start…',
  retrying: (e) => `The download failed (${e}); it is tried again in a moment.`,
  restarting: 'Installed. The box restarts into it now…',
  restartByHand: (v) => `${v} is installed: it runs from the next start of eventbox (this box cannot restart itself).`,
  back: (v) => `Now running ${v}.`,
  gone: 'The box is restarting…',
  rolledBack: (v, from) => `${v} did not start well, so ${from} was put back.`,
  failed: (v, e) => `Installing ${v} failed: ${e}. Nothing was changed.`,
  okAt: (v, at) => `Updated to ${v} on ${at}.`,
  history: 'History',
  status: { running: 'downloading', failed: 'failed', installed: 'installed, waiting for the restart', ok: 'running well', rolled_back: 'rolled back' },
};

const card = (title, ...kids) => h('div', { class: 'card' }, h('h2', { style: 'margin-top:0' }, title), kids);

/** updatesPart draws the Updates screen into box. */
export async function updatesPart(box) {
  draw(box, await call('/api/admin/updates'));
}

function draw(box, u) {
  const latest = u.latest ? T.newest(u.latest, u.checkedAt ? fmtTime(u.checkedAt) : '') : '';
  const status = h('div', { 'aria-live': 'polite' });
  const backup = h('input', { type: 'checkbox', checked: true });
  const actions = !u.checkEnabled ? h('p', { class: 'muted' }, T.checksOff) : h('div', { class: 'row' },
    h('button', {
      onclick: async (e) => {
        const res = await busy(e.currentTarget, call('/api/admin/updates/check', { method: 'POST' }), (err) => toast(errText(err), 'bad'));
        if (res) { toast(T.checked); updatesPart(box); }
      },
    }, T.check),
    u.available && !u.applying && !waiting(u) ? [
      h('label', { class: 'row small' }, backup, T.backupFirst),
      h('button', { class: 'primary', onclick: (e) => apply(box, u, e.currentTarget, !backup.checked, status) }, T.install(u.available)),
    ] : null);
  clear(box, card(T.title,
    h('p', null, T.running(u.current), latest),
    u.checkEnabled && u.latest && !u.available ? h('p', { class: 'muted small' }, T.upToDate) : null,
    lastResult(u), actions, status),
  u.history.length ? card(T.history, h('table', null, h('tbody', null, u.history.map((x) => h('tr', null,
    h('td', null, fmtTime(x.at)), h('td', null, `${x.from} → ${x.version}`), h('td', null, T.status[x.status] || x.status),
    h('td', { class: 'muted small' }, x.error || '')))))) : null);
  if (u.applying) follow(box, u.applying.version, status, u.updater);
}

/** waiting reports whether the available version is installed and waits for a restart. */
const waiting = (u) => u.history.length > 0 && u.history[0].status === 'installed' && u.history[0].version === u.available;

/** lastResult says how the newest attempt ended, when it has. */
function lastResult(u) {
  const a = u.history[0];
  if (!a) return null;
  switch (a.status) {
    case 'ok': return a.version === u.current ? h('p', { class: 'small' }, T.okAt(a.version, fmtTime(a.at))) : null;
    case 'rolled_back': return h('p', { class: 'error' }, T.rolledBack(a.version, a.from), a.error ? ` (${a.error})` : '');
    case 'failed': return h('p', { class: 'error' }, T.failed(a.version, a.error || '?'));
    case 'installed': return u.updater === 'none' ? h('p', null, T.restartByHand(a.version)) : null;
  }
  return null;
}

async function apply(box, u, button, skipBackup, status) {
  if (!confirmDo(T.confirm(u.available, !skipBackup, u.updater !== 'none'))) return;
  const send = (skip) => call('/api/admin/updates/apply', { method: 'POST', body: { version: u.available, skipBackup: skip } });
  let res = await busy(button, send(skipBackup).catch((err) => {
    if (err.code === 'backup_unavailable' && confirmDo(T.noBackup)) return send(true);
    throw err;
  }), (err) => toast(errText(err), 'bad'));
  if (!res) return;
  button.disabled = true;
  clear(status, h('p', null, T.queued(res.backup)));
  follow(box, u.available, status, u.updater);
}

/**
 * follow polls the box while version is downloaded and installed, then,
 * when the box restarts itself, until it answers again, and redraws with
 * the result: running the new version, or rolled back.
 */
async function follow(box, version, status, updater) {
  const bar = h('progress', { max: 1, value: 0, style: 'width:100%' });
  const note = h('p', { class: 'small' }, T.waiting);
  clear(status, bar, note);
  let restarting = false;
  for (let i = 0; box.isConnected && i < 900; i++) {
    await sleep(restarting ? 2000 : 1000);
    let u;
    try {
      u = await call('/api/admin/updates');
    } catch (err) {
      if (!restarting && err.code !== 'network') return toast(errText(err), 'bad');
      clear(note, T.gone);
      continue;
    }
    const a = u.applying;
    if (a) {
      if (a.total) { bar.max = a.total; bar.value = a.done; clear(note, T.downloading(a.done, a.total)); }
      if (a.error && a.status === 'queued') clear(note, T.retrying(a.error));
      continue;
    }
    const last = u.history[0] || {};
    if (u.current === version || last.status === 'rolled_back' || last.status === 'failed' || updater === 'none') {
      if (u.current === version) toast(T.back(version));
      return draw(box, u);
    }
    if (!restarting) { restarting = true; bar.removeAttribute('value'); clear(note, T.restarting); }
  }
}
