// Package outbox sends what the hosts want to hear about once the box can
// reach them: it is the handler of the "notice" job kind (store/notices.go)
// and of the "webhook" delivery kind, and it watches the network so that
// the waiting deliveries go out as soon as it comes back.
//
// # Fan-out
//
// A change that the hosts may want to hear about enqueues a notice job in
// its own transaction. The notice's handler (Outbox.Kinds) turns it into
// one delivery job per enabled webhook subscribed to the notice's kind,
// plus whatever each Config.Fanouts returns (the alert mails), and marks
// the notice fanned out, all in one transaction (store.FanOutJob): a
// notice retried after a crash never enqueues its deliveries twice. Each
// delivery's Key is derived from the notice job's id and the target.
//
// # Bursts
//
// photo.uploaded, photo.pending and message.created come in bursts (a
// party makes thousands of photos). The first notice of a quiet spell (no
// notice of the same webhook, event and kind in the window before it) is
// delivered at once; the ones that follow are coalesced: one delivery per
// webhook, event and kind per window of Config.Window (10 minutes),
// counted from that first notice, sent at the end of the window and
// carrying the count and the data of the first few notices.
// docs/decisions/background.md, "Webhooks: the first notice at once",
// says why.
//
// # Deliveries
//
// A delivery is an HTTP POST in the webhook type's own format (ntfy,
// discord, slack, or json: { kind, at, event: { id, slug, name }, data }),
// signed with the webhook's secret (X-Eventbox-Timestamp, epoch seconds,
// and X-Eventbox-Signature: sha256=<hex HMAC-SHA256 of
// "<timestamp>.<body>">), and carrying X-Eventbox-Delivery, the job's id,
// the same on every attempt so that a receiver can drop a repeat. A 2xx
// answer is a success; 408, 425, 429 and 5xx answers and network errors
// are retried with capped exponential backoff and jitter for 48 hours;
// other answers set the delivery aside. Every attempt is recorded on the
// job (its Result is the receiver's status).
//
// # Waking
//
// The delivery kind has jobs.Kind.WakeOnSuccess: one delivery that goes
// through wakes the others. NetWatcher wakes them too when the routing
// table or an interface changes (netlink on Linux, a poll of
// /proc/net/route otherwise), and once at start.
package outbox
