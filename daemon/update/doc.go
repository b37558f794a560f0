// Package update keeps the box's own binary up to date: it fetches and
// checks the signed release manifest, downloads the binary of the box's
// architecture, installs it beside the packaged one, and rolls it back
// when it does not come up healthy.
//
// # The release manifest
//
// UPDATE_URL serves a JSON envelope (docs/decisions.md, "Updates"):
//
//	{"manifest": {"version": "1.2.0", "publishedAt": 1767225600000,
//	              "binaries": {"arm64": {"url": "eventbox-arm64", "size": 9437184,
//	                                     "sha256": "…hex…"}, …}},
//	 "signature": "…base64 Ed25519 signature of the manifest's bytes…"}
//
// The signature covers the manifest member's bytes exactly as they appear
// in the file, so no canonical form is needed. Binary URLs may be relative
// to UPDATE_URL. `eventbox release-sign` writes such a file.
//
// # Where updates live
//
// The packaged binary (/usr/bin/eventbox from the .deb, or wherever a host
// copied it) is never written: the service runs as an unprivileged user
// under ProtectSystem=full, and dpkg owns that file. Updates go to
// DATA_DIR/update:
//
//	update/bin/eventbox-<version>  downloaded binaries (the last two kept)
//	update/current                 symlink to the binary to run, if any
//	update/pending.json            the update on trial, until it is healthy
//	update/state.json              latest known release and the history
//
// At every start, Boot decides: roll back an update that started once and
// never confirmed itself healthy, then run the binary current points at
// (the caller execs it) unless this binary is that one or is newer (a
// .deb upgrade past the downloaded release wins). Switching current is
// one rename of a symlink, so a power cut leaves either the old or the
// new binary in place.
package update
