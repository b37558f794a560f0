// Package cloudexport is the cloud export: the "export" job kind
// ([Exporter]), which copies an event's photos, videos, guestbook and an
// offline index.html, then a manifest.json of what it sent ([Manifest]),
// to a WebDAV server (webdav) or an S3-compatible bucket (s3store, under
// <prefix>/<box name>/<event>) one file at a time, resuming where an
// earlier attempt stopped (a large file in S3 from the parts the store
// has, the multipart upload kept in the job's record) and pausing while
// guests upload ([Quiet]); and the console's routes of it ([API]): the
// settings and their test (/api/admin/cloud, owners) and an event's
// exports (/api/admin/events/:id/cloud). Both targets sit behind one small
// interface (target.go), so the export's logic is the same for both.
//
// What an export holds is decided by daemon/access, like every list and
// archive: [access.CloudPhotos] and [access.CloudGuestbook] build the
// filter that becomes the store's query. The export never reads a record
// those rules leave out.
//
// What stays in the daemon comes in through the Configs: the job runner's
// nudge, the image pool's JPEG copy of a HEIC, the guests' upload
// activity, the box's name, and the guestbook text and file names the
// archives share.
package cloudexport
