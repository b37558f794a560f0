// Package cloudexport is the cloud export: the "export" job kind
// ([Exporter]), which copies an event's photos, videos, guestbook and an
// offline index.html to a WebDAV server (webdav) one file at a time,
// resuming where an earlier attempt stopped and pausing while guests
// upload ([Quiet]); and the console's routes of it ([API]): the settings
// and their test (/api/admin/cloud, owners) and an event's exports
// (/api/admin/events/:id/cloud).
//
// What an export holds is decided by daemon/access, like every list and
// archive: [access.CloudPhotos] and [access.CloudGuestbook] build the
// filter that becomes the store's query. The export never reads a record
// those rules leave out.
//
// What stays in the daemon comes in through the Configs: the job runner's
// nudge, the image pool's JPEG copy of a HEIC, the guests' upload
// activity, and the guestbook text and file names the archives share.
package cloudexport
