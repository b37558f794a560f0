package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Roles an account can hold.
const (
	RoleOwner     = "owner"
	RoleOrganizer = "organizer"
)

// Account is someone who signs in to the console. Owners see everything;
// organizers only the events listed in EventIDs.
type Account struct {
	ID           string   `json:"id"`
	Username     string   `json:"username"`
	Role         string   `json:"role"`
	Name         string   `json:"name"`
	Email        string   `json:"email"`
	EventIDs     []string `json:"eventIds"`
	PasswordHash string   `json:"passwordHash"`
	// TOTPSecret is the base32 authenticator secret: pending while
	// TwoFactor is false, active once confirmed.
	TOTPSecret string `json:"totpSecret,omitempty"`
	TwoFactor  bool   `json:"twoFactor"`
	// RecoveryHashes are HashToken values of the unspent recovery codes.
	RecoveryHashes []string `json:"recoveryHashes,omitempty"`
	// LastTOTPStep is the last authenticator time step accepted, so a
	// code cannot be used twice.
	LastTOTPStep int64 `json:"lastTotpStep,omitempty"`
	CreatedAt    int64 `json:"createdAt"`   // epoch ms
	LastLoginAt  int64 `json:"lastLoginAt"` // epoch ms, 0 = never

	// MustChangePassword is set while the account still has a password
	// the box generated (the first owner's): the console asks for a new
	// one first. Absent in older records, which reads as false.
	MustChangePassword bool `json:"mustChangePassword,omitempty"`
}

func usernameKey(username string) []byte { return []byte(strings.ToLower(username)) }

// ErrUnknownEvent: an account or invitation names an event that does not
// exist.
var ErrUnknownEvent = errors.New("unknown event")

// Accounts holds the hosts' accounts: sign-in names, password hashes, roles
// and two-factor state. It is a view of the Store it came from, as cheap to
// copy as a pointer; its methods are safe for concurrent use.
type Accounts struct{ s *Store }

// Accounts returns the hosts' accounts.
func (s *Store) Accounts() Accounts { return Accounts{s} }

// Create stores a new account, assigning ID and CreatedAt. Usernames
// are unique without regard to case: ErrConflict when taken. Every id in
// EventIDs must name an existing event (ErrUnknownEvent).
func (ac Accounts) Create(ctx context.Context, a *Account) error {
	a.ID = NewID()
	a.CreatedAt = ac.s.nowMs()
	err := ac.s.db.Update(func(tx *bolt.Tx) error { return putNewAccount(tx, a) })
	if err != nil {
		return fmt.Errorf("creating account %q: %w", a.Username, err)
	}
	return nil
}

// putNewAccount writes a new account and its username index entry.
func putNewAccount(tx *bolt.Tx, a *Account) error {
	if a.EventIDs == nil {
		a.EventIDs = []string{}
	}
	if err := checkEvents(tx, a.EventIDs); err != nil {
		return err
	}
	byName := tx.Bucket(bAccountByName)
	if byName.Get(usernameKey(a.Username)) != nil {
		return ErrConflict
	}
	if err := byName.Put(usernameKey(a.Username), []byte(a.ID)); err != nil {
		return err
	}
	return putJSON(tx.Bucket(bAccounts), []byte(a.ID), a)
}

// checkEvents fails with ErrUnknownEvent unless every id names an event.
func checkEvents(tx *bolt.Tx, ids []string) error {
	events := tx.Bucket(bEvents)
	for _, id := range ids {
		if events.Get([]byte(id)) == nil {
			return fmt.Errorf("event %q: %w", id, ErrUnknownEvent)
		}
	}
	return nil
}

// Get returns the account with the id.
func (ac Accounts) Get(ctx context.Context, id string) (Account, error) {
	var a Account
	err := ac.s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bAccounts), []byte(id), &a)
	})
	if err != nil {
		return Account{}, fmt.Errorf("reading account %s: %w", id, err)
	}
	return a, nil
}

// ByUsername finds an account by username, ignoring case.
func (ac Accounts) ByUsername(ctx context.Context, username string) (Account, error) {
	var a Account
	err := ac.s.db.View(func(tx *bolt.Tx) error {
		id := tx.Bucket(bAccountByName).Get(usernameKey(username))
		if id == nil {
			return ErrNotFound
		}
		return getJSON(tx.Bucket(bAccounts), id, &a)
	})
	if err != nil {
		return Account{}, fmt.Errorf("reading account %q: %w", username, err)
	}
	return a, nil
}

// List lists every account, oldest first.
func (ac Accounts) List(ctx context.Context) ([]Account, error) {
	var out []Account
	err := ac.s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bAccounts).ForEach(func(k, v []byte) error {
			var a Account
			if err := getJSON(tx.Bucket(bAccounts), k, &a); err != nil {
				return err
			}
			out = append(out, a)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("listing accounts: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt < out[j].CreatedAt })
	return out, nil
}

// Update applies fn to the stored account in one transaction. fn may
// change the username (kept unique: ErrConflict) but not the id. An error
// from fn aborts the update and is returned as is (wrapped). Demoting the
// last owner is ErrLastOwner; an unknown id in EventIDs is ErrUnknownEvent.
func (ac Accounts) Update(ctx context.Context, id string, fn func(*Account) error) (Account, error) {
	var a Account
	err := ac.s.db.Update(func(tx *bolt.Tx) error {
		accounts := tx.Bucket(bAccounts)
		if err := getJSON(accounts, []byte(id), &a); err != nil {
			return err
		}
		oldName, oldRole, oldEvents := a.Username, a.Role, slices.Clone(a.EventIDs)
		if err := fn(&a); err != nil {
			return err
		}
		a.ID = id
		if a.EventIDs == nil {
			a.EventIDs = []string{}
		}
		if !slices.Equal(oldEvents, a.EventIDs) {
			if err := checkEvents(tx, a.EventIDs); err != nil {
				return err
			}
		}
		if oldRole == RoleOwner && a.Role != RoleOwner {
			n, err := countOwners(tx)
			if err != nil {
				return err
			}
			if n <= 1 {
				return ErrLastOwner
			}
		}
		if !strings.EqualFold(oldName, a.Username) {
			byName := tx.Bucket(bAccountByName)
			if byName.Get(usernameKey(a.Username)) != nil {
				return ErrConflict
			}
			if err := byName.Delete(usernameKey(oldName)); err != nil {
				return err
			}
			if err := byName.Put(usernameKey(a.Username), []byte(id)); err != nil {
				return err
			}
		}
		return putJSON(accounts, []byte(id), &a)
	})
	if err != nil {
		return Account{}, fmt.Errorf("updating account %s: %w", id, err)
	}
	return a, nil
}

// ErrLastOwner: the change would leave no owner.
var ErrLastOwner = errors.New("the last owner cannot be removed")

// Delete removes an account and ends all its sessions in the same
// transaction. The last owner cannot be deleted (ErrLastOwner).
func (ac Accounts) Delete(ctx context.Context, id string) error {
	err := ac.s.db.Update(func(tx *bolt.Tx) error {
		accounts := tx.Bucket(bAccounts)
		var a Account
		if err := getJSON(accounts, []byte(id), &a); err != nil {
			return err
		}
		if a.Role == RoleOwner {
			owners, err := countOwners(tx)
			if err != nil {
				return err
			}
			if owners <= 1 {
				return ErrLastOwner
			}
		}
		if err := deleteAccountSessions(tx, id, ""); err != nil {
			return err
		}
		if err := tx.Bucket(bAccountByName).Delete(usernameKey(a.Username)); err != nil {
			return err
		}
		return accounts.Delete([]byte(id))
	})
	if err != nil {
		return fmt.Errorf("deleting account %s: %w", id, err)
	}
	return nil
}

// countOwners counts the accounts with the owner role.
func countOwners(tx *bolt.Tx) (int, error) {
	accounts := tx.Bucket(bAccounts)
	owners := 0
	err := accounts.ForEach(func(k, v []byte) error {
		var o Account
		if err := getJSON(accounts, k, &o); err != nil {
			return err
		}
		if o.Role == RoleOwner {
			owners++
		}
		return nil
	})
	return owners, err
}

// forgetEvent removes a deleted event from every account's and every
// invitation's EventIDs, in the transaction that deletes the event: an
// organizer simply loses it (docs/decisions.md, "Accounts and
// invitations").
func forgetEvent(tx *bolt.Tx, eventID string) error {
	if err := dropEventID(tx.Bucket(bAccounts), eventID, func(a *Account) *[]string { return &a.EventIDs }); err != nil {
		return err
	}
	return dropEventID(tx.Bucket(bInvitations), eventID, func(i *Invitation) *[]string { return &i.EventIDs })
}

// dropEventID rewrites each record of b whose event list (reached through
// ids) holds eventID, without it.
func dropEventID[T any](b *bolt.Bucket, eventID string, ids func(*T) *[]string) error {
	changed := map[string]*T{}
	err := b.ForEach(func(k, v []byte) error {
		rec := new(T)
		if err := getJSON(b, k, rec); err != nil {
			return err
		}
		list := ids(rec)
		if slices.Contains(*list, eventID) {
			*list = slices.DeleteFunc(*list, func(id string) bool { return id == eventID })
			changed[string(k)] = rec
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k, rec := range changed {
		if err := putJSON(b, []byte(k), rec); err != nil {
			return err
		}
	}
	return nil
}

// Count returns how many accounts exist.
func (ac Accounts) Count(ctx context.Context) (int, error) {
	n := 0
	err := ac.s.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bAccounts).Stats().KeyN
		return nil
	})
	return n, err
}
