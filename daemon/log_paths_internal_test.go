package daemon

import (
	"net/http/httptest"
	"testing"

	"eventbox/daemon/web"
)

// TestLogPathRedactsPagesToo: the one rule of web.LogPath covers the pages
// that carry a link's token as well as the API, however the path is
// spelled, and leaves other paths alone.
func TestLogPathRedactsPagesToo(t *testing.T) {
	t.Parallel()
	tests := []struct{ path, want string }{
		{"/wall/tok123", "/wall/…"},
		{"/g/tok123", "/g/…"},
		{"/invite/tok123", "/invite/…"},
		{"/api/wall/tok123/live", "/api/wall/…/live"},
		{"/api//wall/tok123/live", "/api//wall/…/live"},
		{"/api/admin/invite/tok123", "/api/admin/invite/…"},
		{"/api/g/tok123/", "/api/g/…/"},
		{"/api/admin/events/ev1/walls/w1", "/api/admin/events/ev1/walls/w1"},
		{"/api/e/party/photos", "/api/e/party/photos"},
		{"/api/wall/", "/api/wall/"},
		{"/e/g/x", "/e/g/x"},
	}
	for _, tt := range tests {
		if got := web.LogPath(httptest.NewRequest("GET", tt.path, nil)); got != tt.want {
			t.Errorf("web.LogPath(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
