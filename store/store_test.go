package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"eventbox/store"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func open(t *testing.T, dir string, c *clock) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dir, store.Options{Now: c.Now})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return st
}

func newClock() *clock { return &clock{t: time.Date(2026, 6, 20, 15, 0, 0, 0, time.UTC)} }

func TestReopenKeepsRecords(t *testing.T) {
	ctx := context.Background()
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	e := store.NewEvent("Party")
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	a := store.Account{Username: "Ana", Role: store.RoleOwner}
	if err := st.Accounts().Create(ctx, &a); err != nil {
		t.Fatal(err)
	}
	token, err := st.Sessions().Create(ctx, a.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	st = open(t, dir, c)
	defer st.Close()
	got, err := st.Events().BySlug(ctx, e.Slug)
	if err != nil || got.Name != "Party" || got.ID != e.ID {
		t.Fatalf("event after reopen = %+v, %v", got, err)
	}
	if _, err := st.Accounts().ByUsername(ctx, "ana"); err != nil {
		t.Fatalf("account by lower-case name after reopen: %v", err)
	}
	if s, err := st.Sessions().Get(ctx, token); err != nil || s.AccountID != a.ID {
		t.Fatalf("session after reopen = %+v, %v", s, err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, store.DBFile))
	if strings.Contains(string(raw), token) {
		t.Fatal("the session token is stored in clear")
	}
}

func TestSecondProcessFailsFast(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	defer st.Close()
	start := time.Now()
	_, err := store.Open(context.Background(), dir, store.Options{LockTimeout: 200 * time.Millisecond})
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second open = %v, want ErrLocked", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Fatalf("second open took %v", time.Since(start))
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(filepath.Join(dir, store.DBFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		v := make([]byte, 8)
		v[7] = byte(store.SchemaVersion() + 1)
		return tx.Bucket([]byte("meta")).Put([]byte("schema"), v)
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = store.Open(context.Background(), dir, store.Options{})
	if !errors.Is(err, store.ErrNewerSchema) {
		t.Fatalf("open = %v, want ErrNewerSchema", err)
	}
}

func TestUsernamesAreUniqueWithoutCase(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	a := store.Account{Username: "Planner", Role: store.RoleOrganizer}
	if err := st.Accounts().Create(ctx, &a); err != nil {
		t.Fatal(err)
	}
	b := store.Account{Username: "PLANNER", Role: store.RoleOrganizer}
	if err := st.Accounts().Create(ctx, &b); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("duplicate username = %v, want ErrConflict", err)
	}
	if err := st.Accounts().Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	owner := store.Account{Username: "boss", Role: store.RoleOwner}
	if err := st.Accounts().Create(ctx, &owner); err != nil {
		t.Fatal(err)
	}
	if err := st.Accounts().Delete(ctx, owner.ID); !errors.Is(err, store.ErrLastOwner) {
		t.Fatalf("deleting the last owner = %v", err)
	}
}

func TestMediaWriteIsAtomicAndConfined(t *testing.T) {
	dir := t.TempDir()
	st := open(t, dir, newClock())
	defer st.Close()
	m := st.Media()
	ev := store.NewID()
	if _, err := m.Write(store.MediaName(ev, "abc.orig"), strings.NewReader("hello")); err != nil {
		t.Fatal(err)
	}
	if !m.Exists(store.MediaName(ev, "abc.orig")) {
		t.Fatal("file not there after Write")
	}
	for _, bad := range []string{"../x", ev + "/../../etc/passwd", ev + "/.hidden", "short/abc", ev + "/a/b", ev + "/UPPER"} {
		if _, err := m.Write(bad, strings.NewReader("x")); !errors.Is(err, store.ErrBadPath) {
			t.Errorf("Write(%q) = %v, want ErrBadPath", bad, err)
		}
	}
	tmp, err := m.CreateTemp()
	if err != nil {
		t.Fatal(err)
	}
	tmp.WriteString("half a photo")
	tmp.Abort()
	entries, _ := os.ReadDir(filepath.Join(dir, "tmp"))
	if len(entries) != 0 {
		t.Fatalf("temp area not empty after Abort: %v", entries)
	}
	// A temp file left by a crash is cleared at the next open.
	if err := os.WriteFile(filepath.Join(dir, "tmp", "up-123"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st2 := open(t, dir, newClock())
	defer st2.Close()
	if entries, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(entries) != 0 {
		t.Fatalf("temp area not cleared at open: %v", entries)
	}
}

func addPhoto(t *testing.T, st *store.Store, p store.Photo, quota int) store.AddPhotoResult {
	t.Helper()
	var jobs []store.JobSpec
	if !p.Variants {
		// As the daemon does: a photo without variants comes with its job.
		if p.ID == "" {
			p.ID = store.NewID()
		}
		jobs = append(jobs, store.VariantJobSpec(p.ID))
	}
	res, err := st.Photos().Add(context.Background(), p, quota, jobs...)
	if err != nil {
		t.Fatalf("add photo: %v", err)
	}
	return res
}

func TestPhotoPagingWithEqualTimes(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	ev, guest := store.NewID(), store.NewID()
	// The clock stands still: every photo arrives in the same millisecond
	// and createdAt is moved forward to stay unique.
	seen := map[int64]bool{}
	for i := 0; i < 130; i++ {
		status := store.StatusVisible
		if i%3 == 0 {
			status = store.StatusPending
		}
		res := addPhoto(t, st, store.Photo{EventID: ev, GuestID: guest, Status: status, Fingerprint: fmt.Sprintf("%064x", i)}, 0)
		if seen[res.Photo.CreatedAt] {
			t.Fatalf("createdAt %d repeated", res.Photo.CreatedAt)
		}
		seen[res.Photo.CreatedAt] = true
	}
	tests := []struct {
		name  string
		q     store.PhotoQuery
		total int
	}{
		{"every photo of the event", store.PhotoQuery{EventID: ev}, 130},
		{"the visible ones", store.PhotoQuery{EventID: ev, Status: store.StatusVisible}, 86},
		{"the guest's own", store.PhotoQuery{EventID: ev, GuestID: guest}, 130},
		{"another event has none", store.PhotoQuery{EventID: store.NewID()}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var all []int64
			q := tt.q
			for pages := 0; ; pages++ {
				if pages > 10 {
					t.Fatal("paging does not end")
				}
				page, err := st.Photos().List(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range page.Items {
					all = append(all, p.CreatedAt)
				}
				if page.Next == 0 {
					break
				}
				if len(page.Items) != 60 {
					t.Fatalf("a page before the last has %d items", len(page.Items))
				}
				if page.Next != page.Items[len(page.Items)-1].CreatedAt {
					t.Fatalf("next cursor %d is not the last item's createdAt", page.Next)
				}
				q.Before = page.Next
			}
			if len(all) != tt.total {
				t.Fatalf("%d photos over all pages, want %d", len(all), tt.total)
			}
			for i := 1; i < len(all); i++ {
				if all[i] >= all[i-1] {
					t.Fatalf("not strictly newest first at %d: %d then %d", i, all[i-1], all[i])
				}
			}
		})
	}
}

func TestScopeAllMergesOwnAndOthersVisible(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	ev, me, other := store.NewID(), store.NewID(), store.NewID()
	addPhoto(t, st, store.Photo{EventID: ev, GuestID: me, Status: store.StatusPending, Fingerprint: fmt.Sprintf("%064x", 1)}, 0)
	c.Advance(time.Second)
	addPhoto(t, st, store.Photo{EventID: ev, GuestID: other, Status: store.StatusVisible, Fingerprint: fmt.Sprintf("%064x", 2)}, 0)
	c.Advance(time.Second)
	addPhoto(t, st, store.Photo{EventID: ev, GuestID: other, Status: store.StatusHidden, Fingerprint: fmt.Sprintf("%064x", 3)}, 0)
	page, err := st.Photos().List(ctx, store.PhotoQuery{EventID: ev, GuestID: me, AlsoVisible: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.Items[0].GuestID != other || page.Items[1].GuestID != me {
		t.Fatalf("scope=all = %+v", page.Items)
	}
}

func TestRetryDedupAndQuota(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	ev, guest := store.NewID(), store.NewID()
	sum := fmt.Sprintf("%064x", 42)
	first := addPhoto(t, st, store.Photo{EventID: ev, GuestID: guest, Status: store.StatusVisible, Fingerprint: sum}, 2)
	again := addPhoto(t, st, store.Photo{EventID: ev, GuestID: guest, Status: store.StatusVisible, Fingerprint: sum}, 2)
	if !again.Existing || again.Photo.ID != first.Photo.ID {
		t.Fatalf("a retry made a new photo: %+v", again)
	}
	addPhoto(t, st, store.Photo{EventID: ev, GuestID: guest, Status: store.StatusVisible, Fingerprint: fmt.Sprintf("%064x", 43)}, 2)
	_, err := st.Photos().Add(ctx, store.Photo{EventID: ev, GuestID: guest, Status: store.StatusVisible, Fingerprint: fmt.Sprintf("%064x", 44)}, 2)
	if !errors.Is(err, store.ErrQuota) {
		t.Fatalf("third photo over a quota of 2 = %v", err)
	}
	counts, _ := st.Events().Counts(ctx, ev)
	if counts.Photos != 2 {
		t.Fatalf("counts = %+v", counts)
	}
}

func TestDeletePhotoRemovesFilesAndIndexes(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	ev, guest, other := store.NewID(), store.NewID(), store.NewID()
	p := addPhoto(t, st, store.Photo{EventID: ev, GuestID: guest, Status: store.StatusPending, Fingerprint: fmt.Sprintf("%064x", 1)}, 0).Photo
	for _, name := range []string{p.OriginalName(), p.VariantName("thumb"), p.VariantName("display")} {
		if _, err := st.Media().Write(name, strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	if removed, _ := st.Photos().Delete(ctx, ev, other, []string{p.ID}); len(removed) != 0 {
		t.Fatal("another guest deleted the photo")
	}
	removed, err := st.Photos().Delete(ctx, ev, guest, []string{p.ID})
	if err != nil || len(removed) != 1 {
		t.Fatalf("delete = %v, %v", removed, err)
	}
	if st.Media().Exists(p.OriginalName()) || st.Media().Exists(p.VariantName("thumb")) {
		t.Fatal("files remain after delete")
	}
	if _, err := st.Photos().Get(ctx, p.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("record remains: %v", err)
	}
	page, _ := st.Photos().List(ctx, store.PhotoQuery{EventID: ev, Status: store.StatusPending})
	if len(page.Items) != 0 {
		t.Fatal("index entry remains")
	}
	counts, _ := st.Events().Counts(ctx, ev)
	if counts.Photos != 0 || counts.Pending != 0 {
		t.Fatalf("counts = %+v", counts)
	}
	// The same bytes may be sent again after a delete.
	if res := addPhoto(t, st, store.Photo{EventID: ev, GuestID: guest, Status: store.StatusPending, Fingerprint: fmt.Sprintf("%064x", 1)}, 0); res.Existing {
		t.Fatal("a deleted photo's hash still counts as a retry")
	}
}

func TestDeleteEventCascades(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	e := store.NewEvent("Party")
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	g := store.Guest{EventID: e.ID, Name: "Ana"}
	if err := st.Guests().Create(ctx, &g); err != nil {
		t.Fatal(err)
	}
	p := addPhoto(t, st, store.Photo{EventID: e.ID, GuestID: g.ID, Status: store.StatusVisible, Fingerprint: fmt.Sprintf("%064x", 1)}, 0).Photo
	if _, err := st.Media().Write(p.OriginalName(), strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	if err := st.Events().Delete(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		func() error { _, err := st.Events().Get(ctx, e.ID); return err }(),
		func() error { _, err := st.Events().BySlug(ctx, e.Slug); return err }(),
		func() error { _, err := st.Photos().Get(ctx, p.ID); return err }(),
		func() error { _, err := st.Guests().Get(ctx, e.ID, g.ID); return err }(),
	} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("record survived the event: %v", err)
		}
	}
	if st.Media().Exists(p.OriginalName()) {
		t.Error("media survived the event")
	}
	if jobs := variantJobs(t, st); len(jobs) != 0 {
		t.Errorf("variant jobs survived: %v", jobs)
	}
}

func TestVariantJobOfADeletedPhotoIsDropped(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	ev, g := store.NewID(), store.NewID()
	p := addPhoto(t, st, store.Photo{EventID: ev, GuestID: g, Status: store.StatusVisible, Fingerprint: fmt.Sprintf("%064x", 1)}, 0).Photo
	kept := addPhoto(t, st, store.Photo{EventID: ev, GuestID: g, Status: store.StatusVisible, Fingerprint: fmt.Sprintf("%064x", 2)}, 0).Photo
	if _, err := st.Photos().Delete(ctx, ev, g, []string{p.ID}); err != nil {
		t.Fatal(err)
	}
	if err := st.Photos().SetVariantsMade(ctx, p.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("recording a deleted photo's variants = %v, want ErrNotFound", err)
	}
	c := claimVariants(t, st, kept.ID)
	if !c.Claimed {
		t.Fatalf("kept photo's job not claimed: %+v", c)
	}
	if _, err := st.Jobs().Finish(ctx, c.Job.ID, c.Job.Tries, store.JobEnd{Outcome: store.OutcomePermanent, Error: "corrupt"}, variantLimits); err != nil {
		t.Fatal(err)
	}
	if jobs := variantJobs(t, st); len(jobs) != 0 {
		t.Fatalf("jobs left: %v", jobs)
	}
	got, _ := st.Photos().Get(ctx, kept.ID)
	if got.Variants || !got.VariantsFailed {
		t.Fatalf("photo after a failed job = %+v", got)
	}
}
