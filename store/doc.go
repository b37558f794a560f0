// Package store keeps every record of eventbox in one bbolt file
// (DATA_DIR/eventbox.db) and the files the records point at in a media area
// on disk (DATA_DIR/media). It knows nothing of HTTP.
//
// # Durability
//
// Every write is one bbolt transaction, committed with fsync. Media files
// are written to DATA_DIR/tmp, fsynced and renamed into place (TempFile,
// Media.Write) before the record that points at them is committed, so a
// power cut leaves no record pointing at nothing. Deleting goes the other
// way: the record and its indexes go in one transaction that also queues
// the files in the media_trash bucket; the files are removed after the
// commit, and whatever a power cut interrupted is finished by EmptyTrash
// when the store opens. A crash between a file's rename into media/ and its
// record's commit leaves a file no record names: SweepMedia, also run at
// open, removes such files once older than a grace period
// (DefaultMediaGrace) and clears the temp area.
//
// # Keys
//
// Ids are 16 characters of lower-case base32 (IDLen), so composite keys are
// plain concatenations. Times are epoch milliseconds as 8 big-endian bytes
// (ts below), so byte order is time order and newest-first paging is a
// reverse cursor walk from Seek(prefix+ts(before)). Values are JSON.
//
// # Buckets
//
//	bucket               key                                   value
//	meta                 "schema"                              uint64 schema version
//	                     "secret/<name>"                       until this release: cookie keys, now
//	                                                           DATA_DIR/<name>.key (secrets.go)
//	                     "secrets/compact"                     set while the file may hold clear
//	                                                           secrets in free pages (secrets.go)
//	                     "settings/mail"                       MailSettings (the SMTP password
//	                                                           sealed with DATA_DIR/secret.key)
//	                     "backup/retentionDays"                JSON int (store/backup.go)
//	                     "backup/last", "backup/lastOK"        BackupResult (latest, latest good)
//	accounts             accountID                             Account
//	accounts_by_name     lower(username)                       accountID
//	invitations          invitationID                          Invitation
//	invitations_by_token hex sha256(token)                     invitationID
//	sessions             hex sha256(token)                     Session
//	sessions_by_account  accountID + hex sha256(token)         empty
//	events               eventID                               Event
//	events_by_slug       slug                                  eventID
//	events_by_created    ts(createdAt) + eventID               empty
//	event_counts         eventID                               EventCounts
//	guests               eventID + guestID                     Guest (stored at its first upload,
//	                                                           message, name or contact; a join
//	                                                           only counts in event_counts)
//	contacts             eventID + guestID                     email address
//	webhooks             webhookID                             Webhook (url and secret sealed
//	                                                           with DATA_DIR/secret.key)
//	photos               photoID                               Photo
//	idx_photo_event      eventID + ts(createdAt)               photoID
//	idx_photo_guest      eventID + guestID + ts                photoID
//	idx_photo_status     eventID + status[0] ('v','p','h') + ts photoID
//	idx_photo_favorite   eventID + ts                          photoID (favorites only)
//	idx_photo_challenge  eventID + challengeID + ts            photoID
//	idx_photo_spot       eventID + spotID + ts                 photoID
//	idx_photo_hash       eventID + guestID + fingerprint (32 bytes) photoID (retry detection)
//	idx_photo_loved      eventID + u64(LovedKey: hearts<<42 | createdAt) photoID (photos with hearts)
//	hearts               photoID + hearter ('g'+guestID or     ts(when); Photo.Hearts counts them in
//	                     'b'+browserID)                        the same transaction (hearts.go)
//	spots                eventID + spotID                      Spot
//	messages             messageID                             Message
//	idx_message_event    eventID + ts(createdAt)               messageID
//	idx_message_guest    eventID + guestID + ts                messageID
//	idx_message_status   eventID + status[0] + ts              messageID
//	shares               eventID + shareID                     Share (gallery link, token kept)
//	shares_by_token      hex sha256(token)                     eventID + shareID
//	walls                eventID + wallID                      Wall (wall link, token kept; made with the first link)
//	walls_by_token       hex sha256(token)                     eventID + wallID
//	stats_hourly         eventID + ts(hour start, UTC)         HourCount {photos, messages}
//	media_trash          media name or eventID                 empty (files still to remove)
//	jobs                 u64(jobID)                            Job (store/jobs.go)
//	idx_job_due          kp(kind) + ts(dueAt) + u64(jobID)     empty (queued jobs only)
//	idx_job_kind         kp(kind) + u64(jobID)                 empty
//	idx_job_status       status[0] ('q','r','d','f') + u64(jobID) empty
//	jobs_by_key          kp(kind) + key                        u64(jobID) (unfinished jobs with a Key)
//
// Example: the photo "k2m4…" of event "ab3d…" taken at 1700000000000 ms is
// photos["k2m4…"], with idx_photo_event["ab3d…" + 00 00 01 8b cf e5 68 00]
// = "k2m4…". createdAt is unique within an event (a clash moves forward by
// 1 ms), which keeps every index key unique.
//
// An index entry is written and removed in the same transaction as its
// record. Listing walks one index prefix, never a whole bucket.
//
// stats_hourly is a counter, not an index: adding a photo adds 1 to the
// hour of its createdAt and deleting it takes 1 away, in the photo's
// transaction (addHourly; guestbook messages do the same with their
// counter), so the statistics' hourly series reads one entry per active
// hour. An hour at zero is removed.
//
// A photo's thumb and display are made by a job of VariantJobKind with
// the photo id as Key (see Jobs below), enqueued by Photos.Add and
// cancelled by the photo's delete; when the job is set aside the photo
// is marked variantsFailed in the same commit, and Photos.RetryVariants
// requeues it (variant_jobs.go). A HEIC may get rough variants first (its
// thumbnail item: Photo.VariantsRough), recorded with a job of
// SharpenJobKind that makes the sharp ones (Photos.SetVariantsRough),
// also cancelled by the delete.
//
// Mail (mail.go): each mail is a job of MailJobKind whose payload is the
// composed mail (daemon/mail). Events.End ends an event, makes its gallery
// link (Event.EndShareID) and enqueues the guests' gallery mails and the
// hosts' summary in one transaction; each guest's record keeps its mail's
// job id (Guest.GalleryMailJob) so the guest page and the console can say
// where that mail is. Invitations.Create enqueues the invitation's mail with
// the invitation.
//
// A gallery link keeps its token in the record, unlike sessions and
// invitations, so the hosts can copy the link's url again; lookups go
// through shares_by_token, keyed by the token's hash.
//
// A webhook's deliveries are jobs of kind "webhook" (daemon/outbox). A
// notice job fans out with Jobs.FanOut: its deliveries are enqueued (or
// folded into a queued, never-tried delivery of the same burst key) and
// the notice marked fanned out (progress note FanOutNote) in one
// transaction, so a notice retried after a crash adds nothing twice.
//
// # Jobs
//
// Background work (image variants, mail, webhooks, exports, backups) is a
// queue of Job records worked by daemon/jobs. A job id is the jobs
// bucket's sequence, so ids grow with each enqueue and u64(jobID) keys
// walk in enqueue order; kp(kind) is the kind's length in one byte and
// the kind, so no kind's prefix is another's ("mail" and "mailx").
//
// Claiming the next job of a kind is one Seek to kp(kind) in idx_job_due:
// the first key is the earliest due (ties in enqueue order); if its ts is
// later than now, nothing is due and the difference is how long to sleep.
// The claim marks the job running, appends an attempt and drops the due
// entry in the same Update, so two workers never get the same job. Only
// queued jobs have a due entry; every job has one kind and one status
// entry, moved in the transaction that changes the record (putJob).
// Listing newest first walks idx_job_kind, idx_job_status or jobs
// backwards from Before.
//
// Example: the second job ever queued, a "mail" due at 1700000000000 ms,
// is jobs[00..02] = {"id":2,"kind":"mail",…}, idx_job_due[04 "mail"
// 00 00 01 8b cf e5 68 00 00..02], idx_job_kind[04 "mail" 00..02] and
// idx_job_status['q' 00..02].
//
// A job enqueued because of a change must commit with it: a store method
// whose change causes jobs takes trailing ...JobSpec arguments and calls
// Jobs.enqueue inside its own Update (existing callers compile unchanged);
// a change that makes a queued job pointless calls cancelJob in its
// Update (a deleted photo's variants). The daemon never sees a
// transaction: it passes JobSpecs to the method and nudges the runner
// after it returns. Jobs.Enqueue is for jobs that no change causes.
//
// Jobs.ClaimByKey claims one job by its kind and key, for a caller that
// needs that job's work now (a thumbnail asked for before the queue
// reached it). A kind may keep its own records in step with its jobs:
// putJob calls jobSetAside when a job is set aside and jobRequeued when
// Jobs.Requeue puts it back, inside the same transaction.
//
// A job found running by Open was in flight when the process died: Open
// records that attempt as "died", counts it in Deaths and makes the job
// due at once; Jobs.Claim sets it aside (status failed) once the kind's
// MaxDeaths is reached, so a job that kills the process is not retried
// for ever.
//
// # Cloud export
//
// The cloud settings are one JSON value (CloudSettings) under the key
// "cloud" of the meta bucket: a WebDAV server, or an S3-compatible bucket
// when its "kind" is "s3" (a record without a kind, written before S3 was
// one, is WebDAV). The WebDAV password and the S3 secret key never leave
// the daemon and are sealed with DATA_DIR/secret.key.
//
//	exports    <eventID> 0x00 <createdAt ms, 8 bytes> <exportID>  → Export (JSON)
//	           e.g. "ev3Kx…" 00 0000019a2b3c4d5e "ex9Qz…"
//
// An export and its "export" job (key: the export's id, payload
// ExportJob) are written in one transaction (Cloud.QueueExport); its end and
// its notice job too (Cloud.UpdateExport). Events.Delete removes the event's
// exports; a queued job then finds its export gone and ends. An event
// keeps its latest ExportsKept exports.
//
// # Printing
//
// The printing settings, each event's layout and the printer's last alert
// are values of the meta bucket (store/printing.go); a print is a job of
// kind "print" (key: the print's id, payload PrintJob), so the queue is
// the job queue.
//
//	meta       "print/settings"                        PrintSettings
//	           "print/layout/<eventID>"                 PrintLayout (removed with the event)
//	           "print/attention"                        the printer trouble last alerted, as text
//
// Once CUPS has accepted a print, its job id is recorded as the print
// job's progress state (PrintState) by Jobs.SetProgress, one commit: an
// attempt after a restart reads it and asks CUPS about that job instead
// of sending the document again. Printing.CancelPrint removes a queued
// print's job, and marks a running one Cancelled in its payload, which
// every later attempt reads. Printing.Attention stores a new trouble and
// its printer.attention notice in one transaction.
//
// # Network
//
// The Network screen's own settings (the hotspot itself is
// NetworkManager's) are one value of the meta bucket (store/network.go):
//
//	meta       "network/settings"                      NetworkSettings (the owner's figure of
//	                                                   how many phones the radio holds)
//	phone_samples  8-byte big-endian epoch ms          PhoneSample (phones on the hotspot, the
//	                                                   radio's figure, idle phones let go; made
//	                                                   with the first sample, the last day kept
//	                                                   and at most MaxPhoneSamples)
//
// # Schema
//
// migrations (migrate.go) is an ordered list; the database stores the
// number applied. Open applies the missing ones, each in its own
// transaction with its version bump, after copying the file aside, and
// refuses a database from a newer binary (ErrNewerSchema).
//
//	1  the first layout: every bucket above but the jobs'
//	2  the durable job queue's buckets (jobs.go)
//	3  event records get the default of each field whose default is not
//	   its zero value and whose key they lack (backfillEvents)
//	4  the variant_queue bucket's entries become "variants" jobs, with
//	   their attempts, and the bucket goes (migrateVariantQueue)
//	5  the webhooks bucket (webhooks.go)
//	6  the exports bucket (cloud.go)
//
// # Media
//
// media/<eventID>/<photoID>.orig          the photo as uploaded
// media/<eventID>/<photoID>.video         a video upload's video
// media/<eventID>/<photoID>.thumb.jpg     400 px variant
// media/<eventID>/<photoID>.display.jpg   1920 px variant
// media/<eventID>/<messageID>.audio       a guestbook voice note
// media/<eventID>/logo-<version>.png      the logo (LogoName), at most 1024 px
//
// Media names are built from ids only and checked on every access, so no
// name a client sends can reach outside DATA_DIR/media.
//
// # Backups and restore
//
// Snapshot takes a backup's consistent copy: the database through
// Tx.WriteTo and the media as hard links, in one read transaction. A
// restore is staged in DATA_DIR/restore/new and swapped in by Open once
// CommitRestore wrote DATA_DIR/restore/journal (store/restore.go): a
// power cut during the swap is finished at the next Open, and a staging
// without a journal is dropped.
package store
