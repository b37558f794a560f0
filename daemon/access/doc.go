// Package access holds the rules that decide what a viewer may see, hear or
// change: photo and video files by variant, voice notes, what a gallery link
// shows, what each list, archive, wall and live stream holds, who may
// upload, and an organizer's scope. The rules are plain functions over plain
// values, so they are tested as tables, without a server.
//
// The daemon builds one [Viewer] per request from what the request carries
// (the admin session's account, the signed gr_guest and gr_share cookies, the
// gallery links those name, as stored now) and asks the rules about it. Reading
// cookies and sessions stays in the daemon; this package does not import
// net/http.
//
// It does not import store either: it defines the few small input types the
// rules read ([Account], [Event], [Link], [Item], [Uploader]) and the daemon
// fills them from store records. What a list may hold comes back as a
// [Filter] of plain values, which the daemon turns field by field into the
// store's query (daemon/visitor/visitor.go). Two reasons. The rules then say exactly which fields
// decide access (a photo's status matters only as visible or not, an account
// only as owner or its event ids), so a table test can generate every
// combination of them. And the store's records carry password hashes, tokens
// and TOTP secrets, which no access rule should be able to read.
//
// The rules, once:
//
//   - An owner reaches every event; an organizer only its listed events
//     ([Reaches]); owner-only actions are for owners ([OwnerActions]).
//   - A photo or video ([Media]): an account that reaches its event, and the
//     guest who sent it, get every variant in any status, the original as
//     sent. Another guest of the event gets every variant of a visible one
//     when the album is shared. A gallery viewer gets a visible one that one
//     of its live links of the event shows (a favorites-only link shows
//     favorites only); the original only when one of those links allows
//     downloads, otherwise 403 forbidden. Anyone else: 404, as if it did not
//     exist.
//   - A voice note ([Hear]): an account that reaches its event, its author,
//     and, for a visible one, a viewer holding a live link of the event when
//     the hosts share the guestbook in the gallery.
//   - A gallery link ([Live], [LinkShows], [LinkDownloads],
//     [LinkShowsGuestbook]): it is live until it expires; it shows visible
//     photos, favorites only when it says so; its archive and originals need
//     allowDownload; its guestbook pages need the event's guestbookInGallery.
//   - The album ([AlbumOpen]): guests see each other's visible photos when
//     the album is shared and its revealAt, if any, has come.
//   - Lists, archives and streams ([Filter]): a guest's photos are its own
//     in any status, plus the others' visible ones with scope=all on an open
//     album; favorites=1 is the open album's visible favorites, else nothing
//     ([GuestPhotos]); a guest's messages are its own ([GuestMessages]). A
//     gallery link lists visible photos, favorites only when it or the
//     visitor says so ([GalleryPhotos]); its guestbook's visible messages
//     when the event shares them, else 403 ([GalleryMessages]); its ZIP is
//     what it shows, only with allowDownload, else 403 ([GalleryArchive]).
//     The console lists and streams everything ([HostList],
//     [HostGuestbook]); its ZIP holds visible photos, every status with
//     all=1 ([HostArchive]); the printed album visible ones ([AlbumBook]);
//     a cloud export visible photos, favorites only with its favorites
//     scope, and visible messages ([CloudPhotos], [CloudGuestbook]).
//     A wall lists visible photos and messages ([WallPhotos],
//     [WallMessages]), shows one only when ready (display made, text
//     written: [WallShows]) and no photo before revealAt ([WallHolds]);
//     its files are those of its event it shows, none before revealAt
//     ([WallFile]). Its live stream shows what it shows now, names an item
//     that leaves it (or is deleted) only when it may have been shown it,
//     and says nothing of photos before revealAt ([WallChange]).
//   - Uploads, in the order a guest meets them: a booth only with the
//     event's current key (forbidden), uploads switched on, not ended and
//     before their closing time (uploads_closed) ([MayUpload],
//     [UploadsOpen]), the quota per guest, none for the booth
//     (quota_reached) ([UploadQuota], [WithinQuota]), videos allowed
//     (videos_off) ([MayUploadVideo]). A guestbook message needs the
//     guestbook on (forbidden) and the event not ended (uploads_closed)
//     ([MayWriteGuestbook]). Joining (and its access code) and the upload
//     rate are checked by the daemon before and after these.
package access
