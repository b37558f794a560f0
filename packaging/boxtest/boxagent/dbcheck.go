package main

import (
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// dbcheck opens the box's database read-only, as the daemon would after a
// power cut (no repair: bbolt has none), and walks every page and bucket
// with bbolt's own consistency check.
func dbcheck(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: boxagent dbcheck FILE")
	}
	db, err := bolt.Open(args[0], 0o600, &bolt.Options{ReadOnly: true, Timeout: 10 * time.Second})
	if err != nil {
		return fmt.Errorf("opening %s: %w", args[0], err)
	}
	defer db.Close()
	var problems []error
	err = db.View(func(tx *bolt.Tx) error {
		for e := range tx.Check() {
			problems = append(problems, e)
		}
		n := 0
		err := tx.ForEach(func([]byte, *bolt.Bucket) error { n++; return nil })
		fmt.Printf("%s: %d top-level buckets, %d bytes, %d problems\n", args[0], n, tx.Size(), len(problems))
		return err
	})
	if err != nil {
		return err
	}
	return errors.Join(problems...)
}
