// Package ingest receives uploads into the store: the one path a photo or
// a video takes from a request body to a record, whoever sends it (a
// guest, the photo booth, which uploads as a booth guest through the
// guest route, or the hosts' import), and that backup restore and the
// WebDAV export are to read too.
//
// The path:
//
//  1. ReadForm streams a multipart form: the file part into a temp file
//     in DATA_DIR/tmp, fingerprinted on the way (fingerprint.go), small
//     text fields read with a cap, anything else skipped. The body is cut
//     off at its limit while streaming (ErrTooLarge), before the rest is
//     read. Video streams its non-multipart body (poster, then
//     video) the same way. Receive tells whose fault a failed copy is: the
//     client's (a FieldError or ErrTooLarge) or the box's disk (the
//     file-system error, wrapped). A request whose context carries a
//     finished resumable upload's file (WithFile, adopt.go) has that file
//     adopted for the file part, or the video after the poster: a hard
//     link into the temp area, fingerprinted by reading it, never
//     written again.
//  2. Photo checks the file with imaging.Check (headers and structure, no
//     pixels decoded) and cuts off data after a JPEG (a motion photo's
//     video); Video probes the video's container and duration.
//  3. The files are committed (fsynced, renamed into media/), then one
//     store transaction adds the record with its variant job (Config.Jobs).
//     A guest's retry of the same bytes returns the photo stored the first
//     time (Result.Existing). Files committed for a record that was not
//     stored are removed.
//
// Errors are typed (ErrTooLarge, *FieldError, *InvalidImageError,
// *InvalidVideoError, *VideoTooLongError); a full card or a failing disk
// comes back as the wrapped file-system error, with ENOSPC or EIO inside,
// and store errors (store.ErrQuota) wrapped too. The package knows no
// HTTP status: daemon's web.ToError maps them all to the spec's codes in
// one place.
//
// What stays in front of ingest (daemon and daemon/api/guests), and why:
// the gates that decide whether a request may upload at all (a joined
// guest, uploads open, quota, rate limits, the per-guest and
// per-address caps on uploads at once) are about the request and who
// sends it: cookies, the event, the limiters the server owns. They
// answer before a byte of the body is read, so they sit in front of
// this package rather than inside it, and ingest starts where the body
// starts. The body's pace (a minimum of bytes per window, a connection
// read deadline) also stays in daemon: it is a property of the
// connection, set by a middleware on every request body, not only
// uploads. Here it shows as a read that fails (a FieldError, the temp
// file removed); daemon's upload wrapper sees the deadline passed and
// answers 408 timeout. ReadForm and Video take the http.ResponseWriter
// only for http.MaxBytesReader, which closes the connection of a body
// over its limit.
package ingest
