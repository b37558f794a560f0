// Package eventbox carries the project's own licence and the notice of
// what its binary bundles from others (THIRD_PARTY_NOTICES.md), embedded
// so that the box can show them.
package eventbox

import _ "embed" // the licence and the notice

//go:embed LICENSE
var license string

//go:embed THIRD_PARTY_NOTICES.md
var notices string

// License is the SPDX identifier of eventbox's own licence.
const License = "Apache-2.0"

// LicenseText returns the text of eventbox's own licence (the LICENSE file).
func LicenseText() string {
	return license
}

// ThirdPartyNotices returns THIRD_PARTY_NOTICES.md: what the binary
// bundles from others (the HEIC decoder's WebAssembly, the fonts, the Go
// modules), under which licence, with the licence texts.
func ThirdPartyNotices() string {
	return notices
}
