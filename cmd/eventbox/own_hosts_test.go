package main

import (
	"slices"
	"testing"
)

// TestOwnHostsFollowMDNSName: the daemon answers for <MDNS_NAME>.local,
// and for no mDNS name when mDNS is off.
func TestOwnHostsFollowMDNSName(t *testing.T) {
	for _, tc := range []struct {
		mdns string
		want []string
	}{
		{"eventbox", []string{"eventbox.local"}},
		{"partybox", []string{"partybox.local"}},
		{"off", nil},
	} {
		t.Run("MDNS_NAME="+tc.mdns, func(t *testing.T) {
			if got := ownHosts(tc.mdns); !slices.Equal(got, tc.want) {
				t.Fatalf("ownHosts(%q) = %v, want %v", tc.mdns, got, tc.want)
			}
		})
	}
}
