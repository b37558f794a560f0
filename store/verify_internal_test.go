package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestBucketsAtListsEveryBucket holds bucketsAt, which VerifyDB checks a
// restored database against, to what the migrations make: a fresh store
// has exactly the buckets bucketsAt lists for the current schema.
func TestBucketsAtListsEveryBucket(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	err = st.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			have = append(have, string(name))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, b := range bucketsAt(Schemas()) {
		want = append(want, string(b))
	}
	slices.Sort(have)
	slices.Sort(want)
	if !slices.Equal(have, want) {
		t.Errorf("a fresh store has buckets %v; bucketsAt(%d) lists %v", have, Schemas(), want)
	}
	// A fresh store has no owner (the daemon makes one): refused.
	err = VerifyDB(filepath.Join(dir, DBFile), time.Second)
	if p, ok := err.(*DBProblem); !ok || p.Reason != "has no owner account: nobody could sign in to run the box" {
		t.Errorf("VerifyDB of a store without an owner = %v", err)
	}
}
