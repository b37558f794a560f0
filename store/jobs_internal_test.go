package store

import (
	"context"
	"errors"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// A store method that causes a job writes its change and calls Jobs.enqueue
// in one transaction: both commit, or neither does.
func TestJobsCommitOrRollBackWithTheChange(t *testing.T) {
	errLater := errors.New("a later step of the change failed")
	tests := []struct {
		name    string
		fail    error
		wantErr error
		want    bool // the change and the job are there
	}{
		{"commit keeps both", nil, nil, true},
		{"a later failure drops both", errLater, errLater, false},
		{"a bad job drops the change", nil, ErrJobKind, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			kind := "mail"
			if errors.Is(tt.wantErr, ErrJobKind) {
				kind = "Bad Kind"
			}
			err = s.db.Update(func(tx *bolt.Tx) error {
				if err := tx.Bucket(bMeta).Put([]byte("change"), []byte("x")); err != nil {
					return err
				}
				if _, err := s.Jobs().enqueue(tx, []JobSpec{{Kind: kind, Key: "k"}}); err != nil {
					return err
				}
				return tt.fail
			})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("update: %v, want %v", err, tt.wantErr)
			}
			var change, key bool
			_ = s.db.View(func(tx *bolt.Tx) error {
				change = tx.Bucket(bMeta).Get([]byte("change")) != nil
				key = tx.Bucket(bJobByKey).Get(uniqueKey("mail", "k")) != nil
				return nil
			})
			page, err := s.Jobs().List(ctx, JobFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if change != tt.want || key != tt.want || (len(page.Jobs) == 1) != tt.want {
				t.Fatalf("change %v, key %v, jobs %d; want all present = %v", change, key, len(page.Jobs), tt.want)
			}
		})
	}
}
