//go:build tools

// Package s3server pins the SeaweedFS module whose weed command the S3 tests
// of eventbox start as a real S3-compatible server. It has its own go.mod so
// the product's module graph stays clean.
package s3server

import _ "github.com/seaweedfs/seaweedfs/weed"
