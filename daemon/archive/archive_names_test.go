package archive

import "testing"

func TestUniqueNameAddsACounterOnClashes(t *testing.T) {
	taken := map[string]bool{}
	tests := []struct {
		name, in, want string
	}{
		{"a new name is kept", "20260620-150000-Ana-aaaa.jpg", "20260620-150000-Ana-aaaa.jpg"},
		{"a clash gets -2 before the extension", "20260620-150000-Ana-aaaa.jpg", "20260620-150000-Ana-aaaa-2.jpg"},
		{"names differing only in case clash too", "20260620-150000-ANA-aaaa.jpg", "20260620-150000-ANA-aaaa-3.jpg"},
		{"a name without extension is counted at its end", "notes", "notes"},
		{"and again", "notes", "notes-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UniqueName(taken, tt.in); got != tt.want {
				t.Fatalf("UniqueName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
