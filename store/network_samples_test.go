package store_test

import (
	"context"
	"testing"

	"eventbox/store"
)

func TestPhoneSamplesKeepTheDayAndAreBounded(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		add       int   // one a minute from t0
		keepSince int64 // minutes from t0, for the last add
		readFrom  int64
		wantN     int
		wantFirst int64 // minute of the first kept
	}{
		{name: "empty", add: 0, wantN: 0},
		{name: "an hour, all kept", add: 60, keepSince: 0, wantN: 60, wantFirst: 0},
		{name: "older than the cut-off forgotten", add: 60, keepSince: 30, wantN: 30, wantFirst: 30},
		{name: "read from a time", add: 60, keepSince: 0, readFrom: 50, wantN: 10, wantFirst: 50},
		{name: "bounded whatever the age", add: store.MaxPhoneSamples + 5, keepSince: 0, wantN: store.MaxPhoneSamples, wantFirst: 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := open(t, t.TempDir(), newClock()).Network()
			const t0, min = int64(1_700_000_000_000), int64(60_000)
			for i := range tc.add {
				keep := int64(0)
				if i == tc.add-1 {
					keep = t0 + tc.keepSince*min
				}
				if err := n.AddPhoneSample(ctx, store.PhoneSample{At: t0 + int64(i)*min, Phones: i % 9, Capacity: 8}, keep); err != nil {
					t.Fatal(err)
				}
			}
			got, err := n.PhoneSamples(ctx, t0+tc.readFrom*min)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.wantN {
				t.Fatalf("%d samples, want %d", len(got), tc.wantN)
			}
			if tc.wantN > 0 && (got[0].At != t0+tc.wantFirst*min || got[0].Capacity != 8) {
				t.Errorf("first sample %+v, want minute %d", got[0], tc.wantFirst)
			}
		})
	}
}
