package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"eventbox/daemon"
	"eventbox/store"
)

// startInProcess runs the real daemon (its router, the tus route, ingest)
// on a fresh DATA_DIR behind an httptest server and lets guests join, each
// from its own loopback address as in the burst.
func startInProcess(t *testing.T, guests int) *box {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	cfg := daemon.DefaultConfig()
	cfg.DataDir = dir
	cfg.AdminPassword = "load-test-password"
	cfg.PasswordCost = bcrypt.MinCost
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.CUPS = filepath.Join(dir, "no-cups.sock")
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config: %v", err)
	}
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatalf("opening the store: %v", err)
	}
	d, err := daemon.New(ctx, cfg, st)
	if err != nil {
		t.Fatalf("starting the daemon: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = d.Run(ctx); close(done) }()
	srv := httptest.NewServer(d.Handler())
	t.Cleanup(func() {
		srv.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the daemon did not stop within 10 s")
		}
		if err := st.Close(); err != nil {
			t.Errorf("closing the store: %v", err)
		}
	})
	b := &box{url: srv.URL}
	if err := b.join(guests); err != nil {
		t.Fatalf("making the event: %v", err)
	}
	return b
}

// TestResumableBurst runs the resumable mode's core on a small scale
// against the real daemon: every guest's connection drops mid-piece, it
// asks where the box stopped and sends the rest; every upload is
// acknowledged, stored byte for byte, and the guests sent at most 1.1
// times what was stored.
func TestResumableBurst(t *testing.T) {
	for _, tc := range []struct {
		name         string
		guests, size int
		piece        int
	}{
		{"pieces of 256 KB, cut in the fifth", 3, 2 << 20, 256 << 10},
		{"the whole rest in one PATCH, as the guest page sends", 3, 1 << 20, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := startInProcess(t, tc.guests)
			plan := newBurst(tc.size, tc.piece)
			if plan.CutAt%plan.Piece == 0 {
				t.Fatalf("the cut at %d falls between pieces of %d", plan.CutAt, plan.Piece)
			}
			res, err := plan.run(context.Background(), b.url, b.slug, b.clients, makeVideos(tc.guests, tc.size), func(int) {})
			if err != nil {
				t.Fatal(err)
			}
			stored := int64(tc.guests * tc.size)
			ratio := float64(res.Sent) / float64(res.Stored)
			t.Logf("%d acknowledged, resumed from %v, %d sent for %d stored (%.3f×), %d pieces answered 409",
				res.Acknowledged, res.Resumed, res.Sent, res.Stored, ratio, res.Conflicts)
			if res.Acknowledged != tc.guests {
				t.Errorf("%d uploads acknowledged, want %d", res.Acknowledged, tc.guests)
			}
			if res.Stored != stored {
				t.Errorf("%d bytes stored, want %d", res.Stored, stored)
			}
			if ratio > 1.1 {
				t.Errorf("the guests sent %.3f× the bytes stored, want at most 1.1", ratio)
			}
			for i, from := range res.Resumed {
				if from == 0 {
					t.Errorf("guest %d resumed from byte 0", i)
				}
			}
		})
	}
}
