package store_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"eventbox/store"
)

func TestInvitationLifecycle(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	e := store.NewEvent("Party")
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	inv := store.Invitation{Email: "a@example.com", Role: store.RoleOrganizer, EventIDs: []string{e.ID}}
	token, err := st.Invitations().Create(ctx, &inv)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("only the token's hash is stored", func(t *testing.T) {
		if inv.TokenHash != store.HashToken(token) || inv.TokenHash == token {
			t.Fatalf("hash %q for token %q", inv.TokenHash, token)
		}
		if inv.ExpiresAt-inv.CreatedAt != (7 * 24 * time.Hour).Milliseconds() {
			t.Fatalf("lifetime %d ms", inv.ExpiresAt-inv.CreatedAt)
		}
	})
	t.Run("the token finds it", func(t *testing.T) {
		got, err := st.Invitations().ByToken(ctx, token)
		if err != nil || got.ID != inv.ID {
			t.Fatalf("got %+v, %v", got, err)
		}
		if _, err := st.Invitations().ByToken(ctx, "other"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown token: %v", err)
		}
	})
	t.Run("a taken username keeps the invitation", func(t *testing.T) {
		taken := store.Account{Username: "Sam", Role: store.RoleOwner}
		if err := st.Accounts().Create(ctx, &taken); err != nil {
			t.Fatal(err)
		}
		a := store.Account{Username: "sam"}
		if err := st.Invitations().Accept(ctx, token, &a); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("accept with a taken name: %v", err)
		}
		if _, err := st.Invitations().ByToken(ctx, token); err != nil {
			t.Fatalf("invitation gone after a refusal: %v", err)
		}
	})
	t.Run("accepting makes the account and spends the invitation", func(t *testing.T) {
		a := store.Account{Username: "lea", Name: "Léa"}
		if err := st.Invitations().Accept(ctx, token, &a); err != nil {
			t.Fatal(err)
		}
		got, err := st.Accounts().ByUsername(ctx, "LEA")
		if err != nil {
			t.Fatal(err)
		}
		if got.Role != store.RoleOrganizer || !reflect.DeepEqual(got.EventIDs, []string{e.ID}) || got.Email != "a@example.com" || got.Name != "Léa" {
			t.Fatalf("account = %+v", got)
		}
		b := store.Account{Username: "lea2"}
		if err := st.Invitations().Accept(ctx, token, &b); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second use: %v", err)
		}
		if list, err := st.Invitations().List(ctx); err != nil || len(list) != 0 {
			t.Fatalf("pending = %v, %v", list, err)
		}
	})
	t.Run("expired invitations are not found, not listed, and swept", func(t *testing.T) {
		old := store.Invitation{Email: "b@example.com", Role: store.RoleOwner}
		tok, err := st.Invitations().Create(ctx, &old)
		if err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Hour)
		fresh := store.Invitation{Email: "c@example.com", Role: store.RoleOwner}
		if _, err := st.Invitations().Create(ctx, &fresh); err != nil {
			t.Fatal(err)
		}
		list, err := st.Invitations().List(ctx)
		if err != nil || len(list) != 2 || list[0].ID != fresh.ID {
			t.Fatalf("pending (newest first) = %+v, %v", list, err)
		}
		c.Advance(7*24*time.Hour - time.Hour)
		if _, err := st.Invitations().ByToken(ctx, tok); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("expired token: %v", err)
		}
		a := store.Account{Username: "late"}
		if err := st.Invitations().Accept(ctx, tok, &a); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("accepting an expired one: %v", err)
		}
		if list, _ := st.Invitations().List(ctx); len(list) != 1 || list[0].ID != fresh.ID {
			t.Fatalf("pending = %+v", list)
		}
		n, err := st.Invitations().DeleteExpired(ctx)
		if err != nil || n != 1 {
			t.Fatalf("swept %d, %v", n, err)
		}
	})
	t.Run("revoking removes it; revoking again is not found", func(t *testing.T) {
		inv := store.Invitation{Email: "d@example.com", Role: store.RoleOwner}
		tok, err := st.Invitations().Create(ctx, &inv)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Invitations().Delete(ctx, inv.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Invitations().ByToken(ctx, tok); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoked token: %v", err)
		}
		if err := st.Invitations().Delete(ctx, inv.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second revoke: %v", err)
		}
	})
	t.Run("an unknown event is refused", func(t *testing.T) {
		inv := store.Invitation{Email: "e@example.com", Role: store.RoleOrganizer, EventIDs: []string{store.NewID()}}
		if _, err := st.Invitations().Create(ctx, &inv); !errors.Is(err, store.ErrUnknownEvent) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestAccountRules(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	evA, evB := store.NewEvent("A"), store.NewEvent("B")
	for _, e := range []*store.Event{&evA, &evB} {
		if err := st.Events().Create(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	owner := store.Account{Username: "admin", Role: store.RoleOwner}
	org := store.Account{Username: "org", Role: store.RoleOrganizer, EventIDs: []string{evA.ID, evB.ID}}
	for _, a := range []*store.Account{&owner, &org} {
		if err := st.Accounts().Create(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("an account naming an unknown event is refused", func(t *testing.T) {
		a := store.Account{Username: "x", Role: store.RoleOrganizer, EventIDs: []string{store.NewID()}}
		if err := st.Accounts().Create(ctx, &a); !errors.Is(err, store.ErrUnknownEvent) {
			t.Fatalf("create: %v", err)
		}
		_, err := st.Accounts().Update(ctx, org.ID, func(a *store.Account) error {
			a.EventIDs = append(a.EventIDs, store.NewID())
			return nil
		})
		if !errors.Is(err, store.ErrUnknownEvent) {
			t.Fatalf("update: %v", err)
		}
	})
	t.Run("the last owner cannot be demoted", func(t *testing.T) {
		_, err := st.Accounts().Update(ctx, owner.ID, func(a *store.Account) error { a.Role = store.RoleOrganizer; return nil })
		if !errors.Is(err, store.ErrLastOwner) {
			t.Fatalf("err = %v", err)
		}
		if got, _ := st.Accounts().Get(ctx, owner.ID); got.Role != store.RoleOwner {
			t.Fatalf("role = %s", got.Role)
		}
	})
	t.Run("deleting an event takes it out of every account's list", func(t *testing.T) {
		inv := store.Invitation{Email: "a@example.com", Role: store.RoleOrganizer, EventIDs: []string{evB.ID, evA.ID}}
		if _, err := st.Invitations().Create(ctx, &inv); err != nil {
			t.Fatal(err)
		}
		if err := st.Events().Delete(ctx, evA.ID); err != nil {
			t.Fatal(err)
		}
		got, err := st.Accounts().Get(ctx, org.ID)
		if err != nil || !reflect.DeepEqual(got.EventIDs, []string{evB.ID}) {
			t.Fatalf("eventIds = %v, %v", got.EventIDs, err)
		}
		list, err := st.Invitations().List(ctx)
		if err != nil || len(list) != 1 || !reflect.DeepEqual(list[0].EventIDs, []string{evB.ID}) {
			t.Fatalf("invitations = %+v, %v", list, err)
		}
		if got, _ := st.Accounts().Get(ctx, owner.ID); got.Username != "admin" || len(got.EventIDs) != 0 {
			t.Fatalf("owner = %+v", got)
		}
	})
}
