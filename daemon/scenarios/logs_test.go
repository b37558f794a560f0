package scenarios_test

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
)

// withLogs is a harness option: every log line of the daemon, debug
// included, goes to b (logBuffer: archive_test.go).
func withLogs(b *logBuffer) func(*daemon.Config) {
	return func(c *daemon.Config) {
		c.Logger = slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
}

// assertNoSecret fails when text (an answer or the logs) holds any of the
// secrets; where says what text is.
func assertNoSecret(t *testing.T, where, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%s contains the secret %q", where, s)
		}
	}
}

// totpAt computes the authenticator code of a base32 secret at t as a phone
// app does (RFC 6238: HMAC-SHA1, 30-second steps, 6 digits), independently
// of the daemon's code.
func totpAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	key, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(secret))
	if err != nil {
		t.Fatalf("secret %q is not base32: %v", secret, err)
	}
	msg := make([]byte, 8)
	binary.BigEndian.PutUint64(msg, uint64(at.Unix()/30))
	mac := hmac.New(sha1.New, key)
	mac.Write(msg)
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	n := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	return fmt.Sprintf("%06d", n%1000000)
}

func TestTOTPHelperMatchesTheRFCVector(t *testing.T) {
	// RFC 6238 appendix B: the ASCII secret "12345678901234567890" at
	// 59 s gives 94287082 with 8 digits, so 287082 with 6.
	secret := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte("12345678901234567890"))
	if got := totpAt(t, secret, time.Unix(59, 0)); got != "287082" {
		t.Fatalf("code at 59 s = %s, want 287082", got)
	}
	if got := totpAt(t, secret, time.Unix(1111111109, 0)); got != "081804" {
		t.Fatalf("code at 1111111109 s = %s, want 081804", got)
	}
}
