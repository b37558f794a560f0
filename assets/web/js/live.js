// @ts-check
// A live stream of an event's changes (Server-Sent Events), shared by the
// console (GET /api/admin/events/<id>/live) and the wall
// (GET /api/wall/<token>/live). EventSource resumes by itself after a
// dropped connection (it sends Last-Event-ID); after a refusal (the box
// restarting, too many screens) this opens a new one a little later and
// names the last change it saw, so nothing is missed.

const NAMES = ['ready', 'skip', 'reset', 'counts',
  'photo.added', 'photo.changed', 'photo.removed',
  'message.added', 'message.changed', 'message.removed'];

/**
 * openLive opens the stream at url. alive() says whether the page still
 * wants it: once it is false the stream closes. from is the position of
 * the list the page drew (its liveId): the stream starts there, so a
 * change between the list and the stream is not missed. It returns
 * { on(name, fn), close() }; fn gets the event's data as an object.
 * 'open' is also emitted on every (re)connection, 'gone' when the box
 * refuses the stream (e.g. a revoked wall link: the page checks why).
 */
export function openLive(url, alive = () => true, from = '') {
  const handlers = new Map();
  let es = null;
  let last = from;
  let timer = 0;
  let closed = false;
  let refusals = 0;
  const emit = (name, data) => { for (const fn of handlers.get(name) || []) fn(data); };
  const close = () => {
    closed = true;
    clearTimeout(timer);
    clearInterval(watch);
    if (es) es.close();
    es = null;
  };
  const connect = () => {
    if (closed) return;
    const u = last ? url + (url.includes('?') ? '&' : '?') + 'lastEventId=' + encodeURIComponent(last) : url;
    es = new EventSource(u);
    es.onopen = () => { refusals = 0; emit('open', {}); };
    for (const n of NAMES) {
      es.addEventListener(n, (e) => {
        if (!alive()) return close();
        if (e.lastEventId) last = e.lastEventId;
        let data = {};
        try { data = e.data ? JSON.parse(e.data) : {}; } catch { /* a keep-alive */ }
        emit(n, data);
      });
    }
    es.onerror = () => {
      if (!alive()) return close();
      if (es && es.readyState === EventSource.CLOSED) {
        es = null;
        refusals++;
        emit('gone', { refusals });
        // 1 s, 2 s, 4 s … up to 30 s between tries.
        timer = setTimeout(connect, Math.min(30000, 1000 * 2 ** Math.min(refusals - 1, 5)));
      }
    };
  };
  const watch = setInterval(() => { if (!alive()) close(); }, 2000);
  connect();
  return {
    on(name, fn) {
      if (!handlers.has(name)) handlers.set(name, new Set());
      handlers.get(name).add(fn);
      return () => handlers.get(name).delete(fn);
    },
    close,
  };
}
