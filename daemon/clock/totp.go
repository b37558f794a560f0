package clock

import (
	"crypto/subtle"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
)

// The authenticator codes eventbox uses (RFC 6238 as apps know it): SHA-1,
// six digits, 30-second steps.
const (
	totpPeriod = 30 // seconds
	totpDigits = 6
	// PairWindow is how far the box's clock may be off for a pair of codes
	// to sign a host in (MatchTOTPPair).
	PairWindow = 3 * 24 * time.Hour
)

// hotpOpts are the authenticator codes' settings for pquerna/otp's HOTP.
var hotpOpts = hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// hotpCode answers the six digits of step (RFC 4226, through pquerna/otp,
// which decodes secret as authenticator apps do: base32, any case, padding
// optional), or false when secret is not a key.
func hotpCode(secret string, step int64) ([]byte, bool) {
	c, err := hotp.GenerateCodeCustom(secret, uint64(step), hotpOpts)
	if err != nil {
		return nil, false
	}
	return []byte(c), true
}

// PairMatch is where a pair of authenticator codes matched.
type PairMatch struct {
	// Step is the 30-second step of the second code, in the phone's time:
	// the step the account's replay guard (LastTOTPStep) moves to.
	Step int64
	// Offset is how far the box's clock is behind the phone's (negative:
	// ahead), taking the phone's time as the middle of Step: right within
	// about 15 s and the time the host took to type.
	Offset time.Duration
}

// MatchTOTPPair looks for two consecutive authenticator codes, code (12
// digits: the code the app shows, then the next one) at steps s and s+1
// for some s within PairWindow of now, both after last (the step accepted
// before). It is how a host with two-step sign-in gets in while the box's
// clock is unsure, and it tells the box the time: one code alone matches
// one of the ±8640 steps by chance one time in 58, two consecutive codes
// one time in 58 million, no weaker than one code against a right clock
// (three steps, one in 333,000) under the same rate limits. A single code
// of the box's own time needs no pair: sign-in takes it as it would with
// a trusted clock. Of several matches (there are none in practice) the
// nearest to now wins.
func MatchTOTPPair(secret, code string, now time.Time, last int64) (PairMatch, bool) {
	if secret == "" || len(code) != 2*totpDigits {
		return PairMatch{}, false
	}
	if _, ok := hotpCode(secret, 0); !ok {
		return PairMatch{}, false
	}
	code1 := func(step int64) []byte { c, _ := hotpCode(secret, step); return c }
	first, second := []byte(code[:totpDigits]), []byte(code[totpDigits:])
	cur := now.Unix() / totpPeriod
	span := int64(PairWindow / (totpPeriod * time.Second))
	best, found := int64(0), false
	// prevOK: the code of step-1 was the first code.
	prevOK := subtle.ConstantTimeCompare(code1(max(cur-span, 0)), first)
	for step := max(cur-span, 0) + 1; step <= cur+span+1; step++ {
		c := code1(step)
		if prevOK&subtle.ConstantTimeCompare(c, second) == 1 && step-1 > last && (!found || abs(step-cur) < abs(best-cur)) {
			best, found = step, true
		}
		prevOK = subtle.ConstantTimeCompare(c, first)
	}
	if !found {
		return PairMatch{}, false
	}
	phone := time.Unix(best*totpPeriod+totpPeriod/2, 0)
	return PairMatch{Step: best, Offset: phone.Sub(now)}, true
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
