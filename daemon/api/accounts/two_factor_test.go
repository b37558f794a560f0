package accounts

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/hotp"

	"eventbox/store"
)

// TestSpendCode checks the second factor without the router: the steps
// accepted around now, the refusal of a step used before, the forms
// people type a code in, and recovery codes spent once and only where
// they are allowed.
func TestSpendCode(t *testing.T) {
	const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	now := time.Unix(1_700_000_015, 0)
	step := totpStep(now)
	code := func(s int64) string {
		c, err := hotp.GenerateCodeCustom(secret, uint64(s), totpOpts)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	codes, hashes := newRecoveryCodes()
	if len(codes) != recoveryCodeCount || len(hashes) != recoveryCodeCount {
		t.Fatalf("%d codes and %d hashes, want %d", len(codes), len(hashes), recoveryCodeCount)
	}
	spaced := code(step)[:3] + " " + code(step)[3:]
	tests := []struct {
		name     string
		code     string
		last     int64 // the step accepted before
		recovery bool
		ok       bool
		wantStep int64 // LastTOTPStep after a good authenticator code
		spent    bool  // a recovery code is gone
	}{
		{name: "current step", code: code(step), ok: true, wantStep: step},
		{name: "a step behind (clock drift)", code: code(step - 1), ok: true, wantStep: step - 1},
		{name: "a step ahead (clock drift)", code: code(step + 1), ok: true, wantStep: step + 1},
		{name: "two steps behind", code: code(step - 2)},
		{name: "two steps ahead", code: code(step + 2)},
		{name: "the step used before", code: code(step), last: step},
		{name: "a step before the one used", code: code(step - 1), last: step},
		{name: "the step after the one used", code: code(step + 1), last: step, ok: true, wantStep: step + 1},
		{name: "typed with a space", code: " " + spaced + "\t", ok: true, wantStep: step},
		{name: "too short", code: code(step)[:5]},
		{name: "empty", code: "", recovery: true},
		{name: "recovery code", code: codes[3], recovery: true, ok: true, spent: true},
		{name: "recovery code in capitals without its dash", code: strings.ToUpper(strings.ReplaceAll(codes[0], "-", "")), recovery: true, ok: true, spent: true},
		{name: "recovery code where none is allowed", code: codes[3]},
		{name: "not a recovery code", code: "abcde-fghjk", recovery: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			shared := slices.Clone(hashes) // as the stored record holds it
			a := store.Account{TOTPSecret: secret, TwoFactor: true, LastTOTPStep: tc.last, RecoveryHashes: shared}
			ok := spendCode(&a, tc.code, now, tc.recovery)
			if ok != tc.ok {
				t.Fatalf("spendCode(%q) = %v, want %v", tc.code, ok, tc.ok)
			}
			wantLeft := recoveryCodeCount
			if tc.spent {
				wantLeft--
			}
			if len(a.RecoveryHashes) != wantLeft {
				t.Errorf("%d recovery codes left, want %d", len(a.RecoveryHashes), wantLeft)
			}
			if !slices.Equal(shared, hashes) {
				t.Error("the record's list of recovery hashes was changed in place")
			}
			switch {
			case !ok && (a.LastTOTPStep != tc.last || !slices.Equal(a.RecoveryHashes, hashes)):
				t.Errorf("a refused code changed the account: step %d, %d codes", a.LastTOTPStep, len(a.RecoveryHashes))
			case ok && !tc.spent && a.LastTOTPStep != tc.wantStep:
				t.Errorf("LastTOTPStep = %d, want %d", a.LastTOTPStep, tc.wantStep)
			}
			if tc.spent && spendCode(&a, tc.code, now, true) {
				t.Error("a recovery code was accepted twice")
			}
		})
	}
}
