package store_test

import (
	"context"
	"errors"
	"testing"

	"eventbox/store"
)

func TestEndEvent(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	e := store.NewEvent("Party")
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	g := store.Guest{ID: store.NewID(), EventID: e.ID, Name: "Ana"}
	if _, err := st.Guests().Keep(ctx, g); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Guests().Update(ctx, e.ID, g.ID, func(g *store.Guest) { g.Email = "ana@example.com" }); err != nil {
		t.Fatal(err)
	}
	mailSpec := func(key string) store.JobSpec { return store.JobSpec{Kind: store.MailJobKind, Key: key} }

	t.Run("a failing plan changes nothing", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := st.Events().End(ctx, e.ID, store.EndPlan{Share: &store.Share{Label: "x"},
			Jobs: func(store.Event, *store.Share, map[string]string) (store.EndJobs, error) {
				return store.EndJobs{}, boom
			}})
		if !errors.Is(err, boom) {
			t.Fatalf("err %v", err)
		}
		got, _ := st.Events().Get(ctx, e.ID)
		shares, _ := st.Shares().List(ctx, e.ID)
		jobs, _ := st.Jobs().Unfinished(ctx, store.MailJobKind, 10)
		if got.EndedAt != 0 || got.EndShareID != "" || len(shares) != 0 || len(jobs) != 0 {
			t.Fatalf("event %+v, %d links, %d jobs after a failed end", got, len(shares), len(jobs))
		}
	})
	t.Run("the end, its link and its jobs commit together", func(t *testing.T) {
		var sawContacts map[string]string
		res, err := st.Events().End(ctx, e.ID, store.EndPlan{Share: &store.Share{Label: "end", ExpiresAt: 1},
			Jobs: func(ev store.Event, sh *store.Share, contacts map[string]string) (store.EndJobs, error) {
				if ev.EndedAt == 0 || sh == nil || sh.Token == "" {
					t.Errorf("the plan sees event %+v link %+v", ev, sh)
				}
				sawContacts = contacts
				return store.EndJobs{Guests: map[string]store.JobSpec{g.ID: mailSpec("g")}, Other: []store.JobSpec{mailSpec("summary")}}, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		if sawContacts[g.ID] != "ana@example.com" || len(sawContacts) != 1 {
			t.Errorf("contacts %v", sawContacts)
		}
		if res.Event.EndedAt != c.Now().UnixMilli() || res.Event.UploadsOpen || res.Share == nil || res.Event.EndShareID != res.Share.ID ||
			res.GuestJobs != 1 || len(res.OtherJobs) != 1 {
			t.Fatalf("result %+v", res)
		}
		if sh, err := st.Shares().ByToken(ctx, res.Share.Token); err != nil || sh.ID != res.Share.ID {
			t.Fatalf("link by token: %+v %v", sh, err)
		}
		kept, err := st.Guests().Get(ctx, e.ID, g.ID)
		if err != nil || kept.GalleryMailJob == 0 {
			t.Fatalf("guest %+v %v", kept, err)
		}
		if j, err := st.Jobs().Get(ctx, kept.GalleryMailJob); err != nil || j.Key != "g" {
			t.Fatalf("the guest's mail job %+v %v", j, err)
		}
	})
	t.Run("a second end is ErrEnded", func(t *testing.T) {
		if _, err := st.Events().End(ctx, e.ID, store.EndPlan{}); !errors.Is(err, store.ErrEnded) {
			t.Fatalf("err %v", err)
		}
	})
}

func TestInvitationEnqueuesItsMail(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	var seen string
	inv := store.Invitation{Email: "a@example.com", Role: store.RoleOwner}
	token, err := st.Invitations().Create(ctx, &inv, func(tok string) (store.JobSpec, error) {
		seen = tok
		return store.JobSpec{Kind: store.MailJobKind, Payload: []byte(`{"to":"a@example.com"}`)}, nil
	})
	if err != nil || seen != token {
		t.Fatalf("token %q, the job saw %q (%v)", token, seen, err)
	}
	if jobs, _ := st.Jobs().Unfinished(ctx, store.MailJobKind, 10); len(jobs) != 1 {
		t.Fatalf("%d mail jobs", len(jobs))
	}
	bad := store.Invitation{Email: "b@example.com", Role: store.RoleOwner}
	if _, err := st.Invitations().Create(ctx, &bad, func(string) (store.JobSpec, error) { return store.JobSpec{}, errors.New("no") }); err == nil {
		t.Fatal("a failing mail did not stop the invitation")
	}
	if list, _ := st.Invitations().List(ctx); len(list) != 1 {
		t.Fatalf("%d invitations after a failed one", len(list))
	}
}

func TestMailSettingsRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	if m, err := st.Mail().Settings(ctx); err != nil || m.Ready() {
		t.Fatalf("fresh settings %+v %v", m, err)
	}
	if _, err := st.Mail().UpdateSettings(ctx, func(m *store.MailSettings) error {
		m.SMTP = store.SMTPSettings{Host: "smtp.x", From: "a@x.example", PasswordSealed: []byte{1, 2}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Mail().UpdateSettings(ctx, func(*store.MailSettings) error { return errors.New("no") }); err == nil {
		t.Fatal("an error from fn was dropped")
	}
	m, _ := st.Mail().Settings(ctx)
	if !m.Ready() || string(m.SMTP.PasswordSealed) != "\x01\x02" {
		t.Fatalf("settings %+v", m)
	}
}
