// Package resumable is the guests' resumable uploads: the tus 1.0.0
// protocol (core, creation, termination and expiration) at
// POST /api/e/:slug/uploads, with HEAD, PATCH, DELETE and GET on the
// upload's own address (docs/decisions/guests.md, "Resumable uploads").
//
// A phone at the edge of a busy hotspot sends a few hundred KB/s and
// loses the network now and then. Over the spec's one-request routes
// every retry sends the whole file again; here a retry asks the box how
// much it has (HEAD) and sends the rest (PATCH from that offset).
//
// What the package keeps, and where: each upload is a folder of
// DATA_DIR/uploads (Config.Dir) holding info.json (who sent it, for which
// event, its kind, length, metadata and the offset the box vouches for)
// and data (the bytes). The bytes of a PATCH are written to data; every
// few MiB and at the end of the request they are fsynced, and only then
// is the offset in info.json advanced (written to a temp file, fsynced,
// renamed, the folder fsynced). A power cut therefore leaves an offset
// that never counts a byte the card does not hold; the next PATCH cuts
// data back to that offset before it writes.
//
// The rules of the spec's routes apply because their own handlers apply
// them (Config.Photos, Config.Messages): at creation, the handler is asked
// with the announced length and a body that stops at its first read (a
// dry run: the access code and guest cookie, the uploads window, the
// quota, the rate limit, videos on or off, the size limits all answer
// before a byte is sent); once the last byte is in, the finished file goes
// to the same handler as the spec's request (a multipart form for a photo
// or a voice note, the poster then the video for a video), so the rules,
// the image and video checks, the retry fingerprint and the record of
// daemon/ingest are the ones every upload takes. The file is adopted, not
// copied: the request carries it in its context (ingest.WithFile) with an
// empty file part, or a body that ends with the poster, and ingest
// hard-links it into its temp area and renames it into place, so each byte
// sent is written to the card once. The upload keeps its own name on the
// bytes until the handler's answer is kept (a crash before that sends the
// same file again, which the fingerprint knows). The handler's
// answer is kept and answered by GET on the upload's address.
package resumable
