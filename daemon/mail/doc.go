// Package mail composes and sends eventbox's mails: the guests' gallery
// link after an event ends, the hosts' summary, invitations, alerts and
// the test mail of the console.
//
// Every mail is a job of kind store.MailJobKind on the job runner
// (daemon/jobs). The change that causes it (ending an event, creating an
// invitation, an alert notice) composes the mail at once, in the event's
// locale, and enqueues it in its own transaction; the job carries the
// composed Message, with a Message-ID fixed when it was queued. The
// handler (Mailer.Kind) only frames it with the sender of the day and
// sends it, so a mail tried again after a crash between "sent" and
// "recorded" carries the same Message-ID and the receiver can tell.
//
// MIME (multipart/alternative, RFC 2047 names and subjects, quoted-
// printable bodies) is github.com/emersion/go-message, and the SMTP
// client (STARTTLS, implicit TLS, AUTH PLAIN, reply codes) is
// github.com/emersion/go-smtp: the same family the tests run their SMTP
// server with.
//
// The SMTP password is kept sealed (AES-256-GCM) with a key in
// DATA_DIR/secret.key (KeyFile), a file that backups leave out: a copy of
// the database alone does not give the password away, and a box restored
// elsewhere asks for it again (docs/decisions.md, "Mail").
package mail
