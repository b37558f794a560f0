// Package assets embeds what the binary carries besides code: the web
// interface (guest, gallery, booth, wall and admin pages) with its
// translations, and the fonts.
package assets

import (
	"embed"
	"io/fs"
)

//go:embed web
var web embed.FS

// Web returns the web interface, rooted at the folder of the pages
// (index.html, guest.html, gallery.html, admin.html and their files).
func Web() fs.FS {
	sub, err := fs.Sub(web, "web")
	if err != nil {
		// fs.Sub fails only for an invalid path; "web" is a constant.
		panic(err)
	}
	return sub
}
