package i18n

import (
	"strings"
	"testing"
)

// TestLeaveStepsNameThePhonesOwnButtons: the guest page's steps to leave
// the box's Wi-Fi (guest.leaveIphone, guest.leaveAndroid) end on the
// button as an iPhone or an Android phone set to that language names it,
// so a guest finds it on their screen: Italian iOS says "Dissocia questa
// rete", not a word-for-word "Dimentica".
func TestLeaveStepsNameThePhonesOwnButtons(t *testing.T) {
	tests := []struct {
		lang, iphone, android string
	}{
		{"en", "Forget This Network", "Forget"},
		{"fr", "Oublier ce réseau", "Oublier"},
		{"it", "Dissocia questa rete", "Elimina"},
		{"es", "Omitir esta red", "Olvidar"},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			g := Embedded().Lang(tt.lang).Section("guest")
			if s := g["leaveIphone"]; !strings.Contains(s, "› "+tt.iphone) {
				t.Errorf("guest.leaveIphone does not end on iOS's %q: %s", tt.iphone, s)
			}
			if s := g["leaveAndroid"]; !strings.Contains(s, "› "+tt.android) {
				t.Errorf("guest.leaveAndroid does not end on Android's %q: %s", tt.android, s)
			}
		})
	}
}
