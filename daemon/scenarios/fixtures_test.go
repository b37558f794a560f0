package scenarios_test

import (
	"testing"

	"eventbox/daemon/daemontest"
)

// The images and forms the scenarios upload are the test kit's
// (daemon/daemontest); these are their short names here.

// photoJPEG makes a w×h JPEG (daemontest.PhotoJPEG).
func photoJPEG(t *testing.T, w, h, orientation int, gps bool, seed int) []byte {
	t.Helper()
	return daemontest.PhotoJPEG(t, w, h, orientation, gps, seed)
}

func pngWithAlpha(t *testing.T) []byte {
	t.Helper()
	return daemontest.PNGWithAlpha(t)
}

func gifImage(t *testing.T) []byte {
	t.Helper()
	return daemontest.GIFImage(t)
}

// multipartBody builds an upload form: the file under fileField and the
// text fields.
func multipartBody(t *testing.T, fileField, fileName string, data []byte, fields map[string]string) (string, []byte) {
	t.Helper()
	return daemontest.MultipartBody(t, fileField, fileName, data, fields)
}
