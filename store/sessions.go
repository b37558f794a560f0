package store

import (
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Session is a signed-in console browser. It is stored under the hash of
// its cookie token, never the token itself.
type Session struct {
	AccountID  string `json:"accountId"`
	CreatedAt  int64  `json:"createdAt"`  // epoch ms
	LastUsedAt int64  `json:"lastUsedAt"` // epoch ms
	// NeedsCode marks a session that passed the password but still owes
	// the second factor: it grants nothing but login/code.
	NeedsCode bool `json:"needsCode,omitempty"`
}

// Sessions holds the hosts' sign-in sessions. It is a view of the Store it
// came from, as cheap to copy as a pointer; its methods are safe for
// concurrent use.
type Sessions struct{ s *Store }

// Sessions returns the hosts' sign-in sessions.
func (s *Store) Sessions() Sessions { return Sessions{s} }

// Create starts a session for the account and returns its token.
func (ss Sessions) Create(ctx context.Context, accountID string, needsCode bool) (string, error) {
	token := NewToken()
	h := []byte(HashToken(token))
	now := ss.s.nowMs()
	sess := Session{AccountID: accountID, CreatedAt: now, LastUsedAt: now, NeedsCode: needsCode}
	err := ss.s.db.Update(func(tx *bolt.Tx) error {
		if err := putJSON(tx.Bucket(bSessions), h, sess); err != nil {
			return err
		}
		return tx.Bucket(bSessionByAcct).Put(join([]byte(accountID), h), nil)
	})
	if err != nil {
		return "", fmt.Errorf("creating session: %w", err)
	}
	return token, nil
}

// Get returns the session of a token.
func (ss Sessions) Get(ctx context.Context, token string) (Session, error) {
	var sess Session
	err := ss.s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bSessions), []byte(HashToken(token)), &sess)
	})
	if err != nil {
		return Session{}, fmt.Errorf("reading session: %w", err)
	}
	return sess, nil
}

// Update applies fn to the session of a token.
func (ss Sessions) Update(ctx context.Context, token string, fn func(*Session)) error {
	h := []byte(HashToken(token))
	err := ss.s.db.Update(func(tx *bolt.Tx) error {
		var sess Session
		if err := getJSON(tx.Bucket(bSessions), h, &sess); err != nil {
			return err
		}
		fn(&sess)
		return putJSON(tx.Bucket(bSessions), h, sess)
	})
	if err != nil {
		return fmt.Errorf("updating session: %w", err)
	}
	return nil
}

// Delete ends the session of a token; a missing one is not an error.
func (ss Sessions) Delete(ctx context.Context, token string) error {
	h := []byte(HashToken(token))
	err := ss.s.db.Update(func(tx *bolt.Tx) error {
		var sess Session
		if err := getJSON(tx.Bucket(bSessions), h, &sess); err != nil {
			return nil
		}
		if err := tx.Bucket(bSessionByAcct).Delete(join([]byte(sess.AccountID), h)); err != nil {
			return err
		}
		return tx.Bucket(bSessions).Delete(h)
	})
	if err != nil {
		return fmt.Errorf("deleting session: %w", err)
	}
	return nil
}

// DeleteByAccount ends every session of an account except the one
// of exceptToken (empty: all of them).
func (ss Sessions) DeleteByAccount(ctx context.Context, accountID, exceptToken string) error {
	except := ""
	if exceptToken != "" {
		except = HashToken(exceptToken)
	}
	err := ss.s.db.Update(func(tx *bolt.Tx) error {
		return deleteAccountSessions(tx, accountID, except)
	})
	if err != nil {
		return fmt.Errorf("ending sessions of account %s: %w", accountID, err)
	}
	return nil
}

func deleteAccountSessions(tx *bolt.Tx, accountID, exceptHash string) error {
	idx := tx.Bucket(bSessionByAcct)
	prefix := []byte(accountID)
	var keys [][]byte
	c := idx.Cursor()
	for k, _ := c.Seek(prefix); k != nil && len(k) > len(prefix) && string(k[:len(prefix)]) == accountID; k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		h := k[len(prefix):]
		if string(h) == exceptHash {
			continue
		}
		if err := tx.Bucket(bSessions).Delete(h); err != nil {
			return err
		}
		if err := idx.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// DeleteBefore removes sessions last used before cutoff (epoch ms)
// and returns how many went.
func (ss Sessions) DeleteBefore(ctx context.Context, cutoff int64) (int, error) {
	n := 0
	err := ss.s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSessions)
		type old struct{ h, acct []byte }
		var stale []old
		err := b.ForEach(func(k, v []byte) error {
			var sess Session
			if err := getJSON(b, k, &sess); err != nil {
				return err
			}
			if sess.LastUsedAt < cutoff {
				stale = append(stale, old{append([]byte(nil), k...), []byte(sess.AccountID)})
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, o := range stale {
			if err := b.Delete(o.h); err != nil {
				return err
			}
			if err := tx.Bucket(bSessionByAcct).Delete(join(o.acct, o.h)); err != nil {
				return err
			}
		}
		n = len(stale)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("removing old sessions: %w", err)
	}
	return n, nil
}
