package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Limits of a database a restore accepts (docs/decisions.md, "Restore:
// what the box trusts and refuses").
const (
	// MaxRestoreDBBytes is the largest database file a restore accepts.
	// A box's database is a few tens of MB; checking one touches every
	// page of its memory map, which counts in the daemon's memory.
	MaxRestoreDBBytes = 256 << 20
	// MaxRecordBytes is the largest value a restored database may hold.
	// The box's records are a few KB; a larger value would be read whole
	// by the code that decodes it.
	MaxRecordBytes = 4 << 20
)

// DBProblem is a database file the box will not run: VerifyDB's answer
// for a file that is damaged, foreign, empty or unsafe to open.
type DBProblem struct {
	Reason string
}

func (e *DBProblem) Error() string { return "database refused: " + e.Reason }

func dbProblem(format string, args ...any) error {
	return &DBProblem{Reason: fmt.Sprintf(format, args...)}
}

// bucketsAt lists the buckets a database of schema v has, each made by a
// migration (migrate.go). A new migration that makes a bucket adds it
// here (TestBucketsAtListsEveryBucket holds the two together).
func bucketsAt(v uint64) [][]byte {
	out := [][]byte{
		bMeta, bAccounts, bAccountByName, bSessions, bSessionByAcct,
		bEvents, bEventBySlug, bEventByTime, bEventCounts,
		bGuests, bPhotos, bPhotoByEvent, bPhotoByGuest, bPhotoByStatus,
		bPhotoFavorite, bPhotoByChal, bPhotoBySpot, bPhotoByHash,
		bContacts, bMediaTrash, bSpots,
		bMessages, bMsgByEvent, bMsgByGuest, bMsgByStatus,
		bShares, bShareByToken, bStatsHourly,
		bInvitations, bInviteByToken,
	}
	if v < 4 {
		out = append(out, bVariantQueue)
	}
	if v >= 2 {
		out = append(out, bJobs, bJobDue, bJobByKind, bJobByStatus, bJobByKey)
	}
	if v >= 5 {
		out = append(out, bWebhooks)
	}
	if v >= 6 {
		out = append(out, bExports)
	}
	if v >= 7 {
		out = append(out, bHearts, bPhotoLoved)
	}
	return out
}

// VerifyDB checks a database file before anything runs it: the staged
// database of a restore. It opens the file read-only (never growing or
// initialising it), and answers a *DBProblem unless the file is a whole
// bbolt database (bbolt's consistency check over every page), no larger
// than MaxRestoreDBBytes, with no value larger than MaxRecordBytes, of a
// schema this binary knows, with every bucket of that schema, and with at
// least one owner account. The file's descriptor and memory map are closed
// whatever the answer.
func VerifyDB(path string, timeout time.Duration) (err error) {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	switch {
	case info.Size() == 0:
		return dbProblem("is empty")
	case info.Size() > MaxRestoreDBBytes:
		return dbProblem("is %d MB, more than the %d MB a box's database may be", mb(info.Size()), mb(MaxRestoreDBBytes))
	case info.Size() < 4*4096:
		return dbProblem("is not a database this eventbox can open: too short")
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: timeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return fmt.Errorf("opening %s: %w", path, ErrLocked)
	}
	if err != nil {
		return dbProblem("is not a database this eventbox can open: %v", err)
	}
	defer func() {
		if cerr := db.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("closing %s: %w", path, cerr))
		}
	}()
	return db.View(func(tx *bolt.Tx) error {
		// The pages the database says it has must all be in the file:
		// a page past its end would fault when read, not fail.
		if tx.Size() > info.Size() {
			return dbProblem("is cut short: it counts %d bytes, the file has %d", tx.Size(), info.Size())
		}
		// Every error is read (the check waits for its reader), the
		// first few kept.
		var problems []string
		n := 0
		for err := range tx.Check() {
			if n++; len(problems) < 3 {
				problems = append(problems, err.Error())
			}
		}
		if n > len(problems) {
			problems = append(problems, fmt.Sprintf("and %d more", n-len(problems)))
		}
		if len(problems) > 0 {
			return dbProblem("is damaged: %s", strings.Join(problems, "; "))
		}
		return verifyRecords(tx)
	})
}

// verifyRecords checks the schema, the buckets and the values of a
// database that passed bbolt's check. A fault reading a page (a file
// changed under the map) is a panic here, not a crash.
func verifyRecords(tx *bolt.Tx) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = dbProblem("is damaged: %v", r)
		}
	}()
	meta := tx.Bucket(bMeta)
	if meta == nil {
		return dbProblem("has no schema: it is not an eventbox database")
	}
	raw := meta.Get(schemaKey)
	if len(raw) != 8 {
		return dbProblem("has no schema: it is not an eventbox database")
	}
	schema := binary.BigEndian.Uint64(raw)
	if schema == 0 {
		return dbProblem("has schema 0: it is not an eventbox database")
	}
	if schema > Schemas() {
		return dbProblem("was written by a newer eventbox (schema %d, this one knows up to %d): update first", schema, Schemas())
	}
	for _, name := range bucketsAt(schema) {
		if tx.Bucket(name) == nil {
			return dbProblem("lacks the %s records a schema %d database has", name, schema)
		}
	}
	err = tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		return checkValues(string(name), b, 0)
	})
	if err != nil {
		return err
	}
	owners := 0
	err = tx.Bucket(bAccounts).ForEach(func(k, v []byte) error {
		var a Account
		if err := json.Unmarshal(v, &a); err != nil {
			return dbProblem("has an account that cannot be read (%s): %v", k, err)
		}
		if a.Role == RoleOwner {
			owners++
		}
		return nil
	})
	if err != nil {
		return err
	}
	if owners == 0 {
		return dbProblem("has no owner account: nobody could sign in to run the box")
	}
	return nil
}

// checkValues refuses a value larger than MaxRecordBytes anywhere under b.
// Only the values' lengths are read: a large value's pages are not
// touched.
func checkValues(path string, b *bolt.Bucket, depth int) error {
	if depth > 4 {
		return dbProblem("nests buckets too deep under %s", path)
	}
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v == nil {
			child := b.Bucket(k)
			if child == nil {
				continue
			}
			if err := checkValues(path+"/"+string(k), child, depth+1); err != nil {
				return err
			}
			continue
		}
		if len(v) > MaxRecordBytes {
			return dbProblem("holds a value of %d MB in %s, more than the %d MB a record may be", mb(int64(len(v))), path, mb(MaxRecordBytes))
		}
	}
	return nil
}

func mb(n int64) int64 { return (n + 1<<20 - 1) >> 20 }
