package guests

import (
	"testing"

	"eventbox/probe"
)

// TestSlugOf reads the slug out of what a guest types or pastes on the
// front page.
func TestSlugOf(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"party", "party"},
		{"http://eventbox.local/e/party", "party"},
		{"https://box.example/e/party/", "party"},
		{"eventbox.local/e/party?join=1", "party"},
		{"http://eventbox.local/e/party#album", "party"},
		{"http://eventbox.local/e/", ""},
		{"ABCD-1234", "ABCD-1234"},
	} {
		if got := slugOf(tc.code); got != tc.want {
			t.Errorf("slugOf(%q) = %q, want %q", tc.code, got, tc.want)
		}
	}
}

// TestAudioExt names a voice note's file after its container.
func TestAudioExt(t *testing.T) {
	for container, want := range map[string]string{
		probe.ContainerOgg: "ogg", probe.ContainerWebM: "webm", probe.ContainerMP3: "mp3", "mp4": "m4a",
	} {
		if got := audioExt(container); got != want {
			t.Errorf("audioExt(%q) = %q, want %q", container, got, want)
		}
	}
}
