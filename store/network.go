package store

import (
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// networkSettingsKey holds the Network screen's own settings in the meta
// bucket. store/doc.go ("Network") describes it.
var networkSettingsKey = []byte("network/settings")

// NetworkSettings are what the Network screen keeps of its own (the
// hotspot itself is NetworkManager's).
type NetworkSettings struct {
	// PhoneCapacity is about how many phones the owner says the hotspot's
	// radio holds; 0: the box's own figure (netsetup.RadioCapacity).
	PhoneCapacity int `json:"phoneCapacity,omitempty"`
	// GuestPort is the Ethernet port the host set to guests' access points
	// ("" for none: every port is for the home internet, the default).
	GuestPort string `json:"guestPort,omitempty"`
	// HotspotRadios are the radios the host put the hotspot on (none
	// kept: the built-in one).
	HotspotRadios []string `json:"hotspotRadios,omitempty"`
	UpdatedAt     int64    `json:"updatedAt,omitempty"`
}

// Network holds the Network screen's settings. It is a view of the Store
// it came from, as cheap to copy as a pointer; its methods are safe for
// concurrent use.
type Network struct{ s *Store }

// Network returns the Network screen's records.
func (s *Store) Network() Network { return Network{s} }

// Settings answers the stored settings, or the zero value when none are
// stored.
func (n Network) Settings(ctx context.Context) (NetworkSettings, error) {
	var ns NetworkSettings
	err := n.s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bMeta), networkSettingsKey, &ns)
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return NetworkSettings{}, fmt.Errorf("reading the network settings: %w", err)
	}
	return ns, nil
}

// SaveSettings stores the settings.
func (n Network) SaveSettings(ctx context.Context, ns NetworkSettings) error {
	ns.UpdatedAt = n.s.nowMs()
	err := n.s.db.Update(func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bMeta), networkSettingsKey, ns)
	})
	if err != nil {
		return fmt.Errorf("storing the network settings: %w", err)
	}
	return nil
}
