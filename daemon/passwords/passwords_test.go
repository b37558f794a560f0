package passwords_test

import (
	"strings"
	"testing"

	"eventbox/daemon/passwords"
)

func TestProblem(t *testing.T) {
	for _, tc := range []struct {
		p, want string
	}{
		{"short", "must be at least 10 characters"},
		{"ten chars!", ""},
		{"éééééééééé", ""}, // ten characters, twenty bytes
		{strings.Repeat("a", 72), ""},
		{strings.Repeat("a", 73), "must be at most 72 bytes"}, // bcrypt reads 72 bytes only
		{strings.Repeat("é", 37), "must be at most 72 bytes"},
	} {
		if got := passwords.Problem(tc.p); got != tc.want {
			t.Errorf("Problem(%.12q…) = %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestHashCheckAndGenerate(t *testing.T) {
	p := passwords.Generate()
	if passwords.Problem(p) != "" || len(p) != 23 || strings.Count(p, "-") != 3 {
		t.Fatalf("generated %q: not four groups of five that pass the rules", p)
	}
	if p == passwords.Generate() {
		t.Fatal("two generated passwords are the same")
	}
	h, err := passwords.Hash(p, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !passwords.Check(h, p) || passwords.Check(h, p+"x") || passwords.Check("not a hash", p) {
		t.Fatal("Check takes a wrong password or refuses the right one")
	}
}
