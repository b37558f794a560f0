package store

import (
	"context"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"
)

// InvitationLifetime is how long an invitation link can be used.
const InvitationLifetime = 7 * 24 * time.Hour

// Invitation lets the holder of its link create a console account with the
// role and events an owner chose. It is stored under its id; the link's
// token is kept only as its hash.
type Invitation struct {
	ID        string   `json:"id"`
	TokenHash string   `json:"tokenHash"`
	Email     string   `json:"email"`
	Role      string   `json:"role"`
	EventIDs  []string `json:"eventIds"`
	// CreatedBy is the id of the account that sent it.
	CreatedBy string `json:"createdBy"`
	CreatedAt int64  `json:"createdAt"` // epoch ms
	ExpiresAt int64  `json:"expiresAt"` // epoch ms
}

// Invitations holds the invitations to make an account. It is a view of the
// Store it came from, as cheap to copy as a pointer; its methods are safe
// for concurrent use.
type Invitations struct{ s *Store }

// Invitations returns the invitations to make an account.
func (s *Store) Invitations() Invitations { return Invitations{s} }

// Create stores a new invitation, assigning ID, TokenHash,
// CreatedAt and ExpiresAt (InvitationLifetime later), and returns the
// link's token: the only time it exists in the clear. Every id in EventIDs
// must name an existing event (ErrUnknownEvent). Each of jobs, given the
// token, answers a job enqueued with the invitation (its mail).
func (iv Invitations) Create(ctx context.Context, inv *Invitation, jobs ...func(token string) (JobSpec, error)) (string, error) {
	token := NewToken()
	inv.ID = NewID()
	inv.TokenHash = HashToken(token)
	inv.CreatedAt = iv.s.nowMs()
	inv.ExpiresAt = inv.CreatedAt + InvitationLifetime.Milliseconds()
	if inv.EventIDs == nil {
		inv.EventIDs = []string{}
	}
	err := iv.s.db.Update(func(tx *bolt.Tx) error {
		if err := checkEvents(tx, inv.EventIDs); err != nil {
			return err
		}
		if err := tx.Bucket(bInviteByToken).Put([]byte(inv.TokenHash), []byte(inv.ID)); err != nil {
			return err
		}
		for _, job := range jobs {
			spec, err := job(token)
			if err != nil {
				return err
			}
			if _, err := iv.s.Jobs().enqueue(tx, []JobSpec{spec}); err != nil {
				return err
			}
		}
		return putJSON(tx.Bucket(bInvitations), []byte(inv.ID), inv)
	})
	if err != nil {
		return "", fmt.Errorf("creating invitation: %w", err)
	}
	return token, nil
}

// List lists the invitations that can still be used, newest first.
func (iv Invitations) List(ctx context.Context) ([]Invitation, error) {
	now := iv.s.nowMs()
	out := []Invitation{}
	err := iv.s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bInvitations)
		return b.ForEach(func(k, v []byte) error {
			var inv Invitation
			if err := getJSON(b, k, &inv); err != nil {
				return err
			}
			if inv.ExpiresAt > now {
				out = append(out, inv)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("listing invitations: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt > out[j].CreatedAt })
	return out, nil
}

// ByToken returns the invitation of a link's token; ErrNotFound
// when there is none or it has expired.
func (iv Invitations) ByToken(ctx context.Context, token string) (Invitation, error) {
	var inv Invitation
	err := iv.s.db.View(func(tx *bolt.Tx) error {
		var err error
		inv, err = invitationByToken(tx, token, iv.s.nowMs())
		return err
	})
	if err != nil {
		return Invitation{}, fmt.Errorf("reading invitation: %w", err)
	}
	return inv, nil
}

func invitationByToken(tx *bolt.Tx, token string, now int64) (Invitation, error) {
	var inv Invitation
	id := tx.Bucket(bInviteByToken).Get([]byte(HashToken(token)))
	if id == nil {
		return Invitation{}, ErrNotFound
	}
	if err := getJSON(tx.Bucket(bInvitations), id, &inv); err != nil {
		return Invitation{}, err
	}
	if inv.ExpiresAt <= now {
		return Invitation{}, ErrNotFound
	}
	return inv, nil
}

// Accept spends the invitation of a link's token on a new
// account, in one transaction: a gets the invitation's role and events
// (and its email when a has none), an ID and CreatedAt, and the invitation
// is gone. ErrNotFound when the token is unknown, spent, revoked or
// expired; ErrConflict when the username is taken (the invitation stays).
func (iv Invitations) Accept(ctx context.Context, token string, a *Account) error {
	err := iv.s.db.Update(func(tx *bolt.Tx) error {
		inv, err := invitationByToken(tx, token, iv.s.nowMs())
		if err != nil {
			return err
		}
		a.ID = NewID()
		a.CreatedAt = iv.s.nowMs()
		a.Role = inv.Role
		a.EventIDs = inv.EventIDs
		if a.Email == "" {
			a.Email = inv.Email
		}
		if err := putNewAccount(tx, a); err != nil {
			return err
		}
		return deleteInvitation(tx, inv)
	})
	if err != nil {
		return fmt.Errorf("accepting invitation: %w", err)
	}
	return nil
}

// Delete revokes an invitation: its link answers ErrNotFound
// from then on. An unknown id is ErrNotFound.
func (iv Invitations) Delete(ctx context.Context, id string) error {
	err := iv.s.db.Update(func(tx *bolt.Tx) error {
		var inv Invitation
		if err := getJSON(tx.Bucket(bInvitations), []byte(id), &inv); err != nil {
			return err
		}
		return deleteInvitation(tx, inv)
	})
	if err != nil {
		return fmt.Errorf("deleting invitation %s: %w", id, err)
	}
	return nil
}

func deleteInvitation(tx *bolt.Tx, inv Invitation) error {
	if err := tx.Bucket(bInviteByToken).Delete([]byte(inv.TokenHash)); err != nil {
		return err
	}
	return tx.Bucket(bInvitations).Delete([]byte(inv.ID))
}

// DeleteExpired removes the invitations whose link has expired
// and returns how many went.
func (iv Invitations) DeleteExpired(ctx context.Context) (int, error) {
	now := iv.s.nowMs()
	n := 0
	err := iv.s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bInvitations)
		var expired []Invitation
		err := b.ForEach(func(k, v []byte) error {
			var inv Invitation
			if err := getJSON(b, k, &inv); err != nil {
				return err
			}
			if inv.ExpiresAt <= now {
				expired = append(expired, inv)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, inv := range expired {
			if err := deleteInvitation(tx, inv); err != nil {
				return err
			}
		}
		n = len(expired)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("removing expired invitations: %w", err)
	}
	return n, nil
}
