//go:build tools

// Package s3gateway pins the versitygw module whose command the S3 tests
// of eventbox start as a real S3-compatible server in CI. It has its own
// go.mod so the product's module graph stays clean.
package s3gateway

import _ "github.com/versity/versitygw/cmd/versitygw"
