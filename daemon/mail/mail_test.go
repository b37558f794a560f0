package mail_test

import (
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/daemon/jobs"
	eventmail "eventbox/daemon/mail"
	"eventbox/daemon/mail/mailtest"
	"eventbox/store"
)

func openStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// newMailer makes a Mailer over st whose settings point at srv.
func newMailer(t *testing.T, st *store.Store, srv *mailtest.Server, withPassword bool) *eventmail.Mailer {
	t.Helper()
	key, err := eventmail.LoadKey(st.Dir())
	if err != nil {
		t.Fatal(err)
	}
	m, err := eventmail.New(eventmail.Config{Store: st, Key: key, TLS: srv.ClientTLS})
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Mail().UpdateSettings(context.Background(), func(s *store.MailSettings) error {
		s.SMTP = store.SMTPSettings{Host: srv.Host, Port: srv.Port, From: "Fête box <box@party.example>", Security: srv.Security}
		if withPassword {
			s.SMTP.Username = mailtest.Username
			if s.SMTP.PasswordSealed, err = m.Seal(mailtest.Password); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// parts reads the plain and HTML parts of a multipart/alternative mail.
func parts(t *testing.T, m *mail.Message) (text, html string) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("Content-Type %q: want multipart/alternative (%v)", m.Header.Get("Content-Type"), err)
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	var types []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(p) // quoted-printable is decoded by NextPart
		if err != nil {
			t.Fatal(err)
		}
		ct, cp, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if cp["charset"] != "utf-8" {
			t.Errorf("part %s: charset %q", ct, cp["charset"])
		}
		types = append(types, ct)
		switch ct {
		case "text/plain":
			text = string(b)
		case "text/html":
			html = string(b)
		}
	}
	if strings.Join(types, ",") != "text/plain,text/html" {
		t.Fatalf("parts %v: want text/plain then text/html", types)
	}
	return text, html
}

func TestGalleryMailOverEachSecurity(t *testing.T) {
	t.Parallel()
	ev := store.Event{ID: "aaaaaaaaaaaaaaaa", Name: "Fête d’été", DefaultLocale: "fr"}
	for _, sec := range []string{mailtest.None, mailtest.StartTLS, mailtest.TLS} {
		t.Run("a French gallery mail with its password arrives over "+sec, func(t *testing.T) {
			t.Parallel()
			srv := mailtest.Start(t, sec)
			st := openStore(t, t.TempDir())
			m := newMailer(t, st, srv, sec != mailtest.None)
			msg, err := eventmail.GalleryMessage(eventmail.Gallery{Event: ev, To: "zoe@guest.example", GuestName: "Zoé",
				URL: "http://box.local/g/tok123", Password: "s3cret-pass", ExpiresAt: 1_800_000_000_000, Domain: "party.example"})
			if err != nil {
				t.Fatal(err)
			}
			reply, err := m.Send(context.Background(), msg)
			if err != nil {
				t.Fatalf("send: %v", err)
			}
			if !strings.HasPrefix(reply, "250") {
				t.Errorf("reply %q: want 250", reply)
			}
			got := srv.Received()
			if len(got) != 1 || got[0].From != "box@party.example" || len(got[0].To) != 1 || got[0].To[0] != "zoe@guest.example" {
				t.Fatalf("received %+v", got)
			}
			pm := got[0].Message(t)
			dec := new(mime.WordDecoder)
			if subj, _ := dec.DecodeHeader(pm.Header.Get("Subject")); subj != "Les photos de Fête d’été" {
				t.Errorf("Subject %q", subj)
			}
			if raw := pm.Header.Get("Subject"); !strings.HasPrefix(raw, "=?") {
				t.Errorf("Subject %q is not RFC 2047-encoded", raw)
			}
			to, err := pm.Header.AddressList("To")
			if err != nil || len(to) != 1 || to[0].Name != "Zoé" || to[0].Address != "zoe@guest.example" {
				t.Errorf("To %v (%v)", to, err)
			}
			from, err := pm.Header.AddressList("From")
			if err != nil || from[0].Name != "Fête box" {
				t.Errorf("From %v (%v)", from, err)
			}
			if id := pm.Header.Get("Message-ID"); id != "<"+msg.MessageID+">" || !strings.HasSuffix(id, "@party.example>") {
				t.Errorf("Message-ID %q, want <%s>", id, msg.MessageID)
			}
			if _, err := pm.Header.Date(); err != nil {
				t.Errorf("Date: %v", err)
			}
			if pm.Header.Get("List-Unsubscribe") != "<mailto:box@party.example?subject=unsubscribe>" {
				t.Errorf("List-Unsubscribe %q", pm.Header.Get("List-Unsubscribe"))
			}
			if pm.Header.Get("Content-Language") != "fr" {
				t.Errorf("Content-Language %q", pm.Header.Get("Content-Language"))
			}
			text, html := parts(t, pm)
			for name, body := range map[string]string{"text": text, "html": html} {
				for _, want := range []string{"http://box.local/g/tok123", "s3cret-pass", "Bonjour Zoé", "galerie", "2027-01-15"} {
					if !strings.Contains(body, want) {
						t.Errorf("%s part lacks %q:\n%s", name, want, body)
					}
				}
			}
		})
	}
}

func TestMessagesInEachLocale(t *testing.T) {
	t.Parallel()
	want := map[string]string{"en": "The photos of Party", "fr": "Les photos de Party", "it": "Le foto di Party", "es": "Las fotos de Party", "": "The photos of Party"}
	for locale, subject := range want {
		msg, err := eventmail.GalleryMessage(eventmail.Gallery{Event: store.Event{Name: "Party", DefaultLocale: locale},
			To: "a@b.example", URL: "http://x/g/t", Domain: "d.example"})
		if err != nil {
			t.Fatal(err)
		}
		if msg.Subject != subject {
			t.Errorf("locale %q: subject %q, want %q", locale, msg.Subject, subject)
		}
		if strings.Contains(msg.Text, "Password") || strings.Contains(msg.Text, "Mot de passe") || strings.Contains(msg.Text, "Contraseña") {
			t.Errorf("locale %q: a mail without a password mentions one:\n%s", locale, msg.Text)
		}
	}
	sum, err := eventmail.SummaryMessage(eventmail.Summary{Event: store.Event{Name: "Fiesta", DefaultLocale: "es"}, To: "host@x.example",
		Counts: store.EventCounts{Photos: 12, Videos: 2, Messages: 3, Guests: 9},
		Top:    []eventmail.Tally{{Label: "Ana", Photos: 7}}, Places: []eventmail.Tally{{Label: "Jardín", Photos: 4}},
		URL: "http://x/g/t", Password: "pw-for-hosts", GuestMails: 5, Domain: "x.example"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Resumen de Fiesta", "10 fotos", "2 vídeos", "3 mensajes", "9 invitados", "Ana: 7", "Jardín: 4", "http://x/g/t", "pw-for-hosts", "5 invitados recibirán"} {
		if !strings.Contains(sum.Subject+sum.Text, w) || (w != "Resumen de Fiesta" && !strings.Contains(sum.HTML, w)) {
			t.Errorf("summary lacks %q:\n%s", w, sum.Text)
		}
	}
}

// run starts a runner with the mail kind until the test ends.
func run(t *testing.T, st *store.Store, m *eventmail.Mailer) *jobs.Runner {
	t.Helper()
	r, err := jobs.New(jobs.Config{Store: st, Kinds: []jobs.Kind{m.Kind()}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { r.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return r
}

func waitIdle(t *testing.T, r *jobs.Runner) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 72*time.Hour)
	defer cancel()
	if err := r.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
}

func testMail(t *testing.T, to string) store.JobSpec {
	t.Helper()
	msg, err := eventmail.TestMessage(to, "party.example")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := eventmail.Spec(msg, "")
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func TestMailJobRetriesUntilTheServerAnswers(t *testing.T) {
	t.Parallel()
	// The SMTP server lives outside the bubble: its goroutines wait on
	// the network, which would keep the bubble's time from moving.
	srv := mailtest.Start(t, mailtest.StartTLS)
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, dir)
		m := newMailer(t, st, srv, true)
		srv.FailNext(2)
		r := run(t, st, m)
		ids, err := r.Enqueue(context.Background(), testMail(t, "host@party.example"))
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Hour)
		waitIdle(t, r)
		j, err := st.Jobs().Get(context.Background(), ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != store.JobDone || j.Tries != 3 || len(j.Attempts) != 3 {
			t.Fatalf("job %s after %d tries (%d attempts kept), want done after 3: %+v", j.Status, j.Tries, len(j.Attempts), j.Attempts)
		}
		if a := j.Attempts[0]; a.Outcome != store.OutcomeError || !strings.HasPrefix(a.Result, "4") {
			t.Errorf("first attempt %+v: want an error with the server's 4xx reply", a)
		}
		if a := j.Attempts[2]; a.Outcome != store.OutcomeOK || !strings.HasPrefix(a.Result, "250") {
			t.Errorf("last attempt %+v: want ok with 250", a)
		}
		if gap := time.Duration(j.Attempts[1].Start-j.Attempts[0].Start) * time.Millisecond; gap < 24*time.Second || gap > 30*time.Second {
			t.Errorf("first retry after %v: want 30 s less up to a fifth", gap)
		}
	})
	if got := srv.Received(); len(got) != 1 {
		t.Fatalf("%d messages arrived, want 1", len(got))
	}
}

func TestRefusedMailIsSetAsideWithTheReply(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, mailtest.None)
	srv.Reject("nobody@party.example", 550)
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, dir)
		r := run(t, st, newMailer(t, st, srv, false))
		ids, err := r.Enqueue(context.Background(), testMail(t, "nobody@party.example"))
		if err != nil {
			t.Fatal(err)
		}
		waitIdle(t, r)
		j, err := st.Jobs().Get(context.Background(), ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != store.JobFailed || j.Tries != 1 {
			t.Fatalf("job %s after %d tries, want failed after 1", j.Status, j.Tries)
		}
		if a := j.Attempts[0]; a.Outcome != store.OutcomePermanent || a.Result != "550 5.1.1 No such user here" {
			t.Errorf("attempt %+v: want permanent with the server's reply", a)
		}
	})
}

func TestPendingMailsGoOnceAfterARestart(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, mailtest.TLS)
	dir := t.TempDir()
	ctx := context.Background()
	// Three mails queued while the box was offline, and a fourth whose
	// attempt was cut by a power cut after the server took it.
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := newMailer(t, st, srv, true)
	var want []string
	for _, to := range []string{"a@x.example", "b@x.example", "c@x.example", "d@x.example"} {
		spec := testMail(t, to)
		if _, err := st.Jobs().Enqueue(ctx, spec); err != nil {
			t.Fatal(err)
		}
		want = append(want, to)
	}
	claim, err := st.Jobs().Claim(ctx, store.MailJobKind, store.JobLimits{MaxAge: 48 * time.Hour})
	if err != nil || !claim.Claimed {
		t.Fatalf("claim: %v %+v", err, claim)
	}
	var cut eventmail.Message
	if err := (jobs.Job{Job: claim.Job}).Decode(&cut); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Send(ctx, cut); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st = openStore(t, dir)
	m = newMailer(t, st, srv, true)
	r := run(t, st, m)
	waitIdle(t, r)
	got := srv.Received()
	byID := map[string][]string{}
	for _, rc := range got {
		byID[rc.MessageID()] = append(byID[rc.MessageID()], rc.To[0])
	}
	if len(byID) != len(want) {
		t.Fatalf("%d distinct Message-IDs arrived, want %d: %v", len(byID), len(want), byID)
	}
	for id, tos := range byID {
		if tos[0] == cut.To {
			if len(tos) != 2 || id != "<"+cut.MessageID+">" {
				t.Errorf("the cut mail arrived %d times as %s, want twice with its own id %s", len(tos), id, cut.MessageID)
			}
		} else if len(tos) != 1 {
			t.Errorf("%s arrived %d times", id, len(tos))
		}
	}
}

func TestSealedPassword(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := openStore(t, dir)
	srv := mailtest.Start(t, mailtest.None)
	m := newMailer(t, st, srv, true)
	raw, err := os.ReadFile(filepath.Join(dir, store.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), mailtest.Password) {
		t.Error("the database holds the SMTP password in clear")
	}
	info, err := os.Stat(filepath.Join(dir, eventmail.KeyFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", info, err)
	}
	s, _ := st.Mail().Settings(context.Background())
	if !m.HasPassword(s.SMTP) {
		t.Error("the password does not open with the box's key")
	}
	// A box restored elsewhere has another key: the password is asked again.
	other := t.TempDir()
	key, err := eventmail.LoadKey(other)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := eventmail.New(eventmail.Config{Store: st, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if m2.HasPassword(s.SMTP) {
		t.Error("another key opens the password")
	}
	if _, _, err := m2.Server(context.Background()); err == nil {
		t.Error("Server opened a password sealed with another key")
	}
}

func TestAlertFanout(t *testing.T) {
	t.Parallel()
	st := openStore(t, t.TempDir())
	srv := mailtest.Start(t, mailtest.None)
	m := newMailer(t, st, srv, false)
	ctx := context.Background()
	n := store.Notice{Kind: store.NoticeStorageLow, At: 1_700_000_000_000, Data: []byte(`{"freeBytes":1024}`)}
	specs, err := m.AlertFanout(ctx, n)
	if err != nil || len(specs) != 0 {
		t.Fatalf("without an admin address: %v %v", specs, err)
	}
	if _, err := st.Mail().UpdateSettings(ctx, func(s *store.MailSettings) error {
		s.AdminEmail, s.Alerts.StorageLow = "admin@party.example", true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind string
		want int
	}{{store.NoticeStorageLow, 1}, {store.NoticeBackupFailed, 0}, {store.NoticeExportFailed, 0}, {store.NoticePhotoUploaded, 0}} {
		n.Kind = c.kind
		specs, err := m.AlertFanout(ctx, n)
		if err != nil || len(specs) != c.want {
			t.Errorf("%s: %d specs (%v), want %d", c.kind, len(specs), err, c.want)
		}
		for _, sp := range specs {
			var msg eventmail.Message
			if err := (jobs.Job{Job: store.Job{Payload: sp.Payload}}).Decode(&msg); err != nil {
				t.Fatal(err)
			}
			if sp.Kind != store.MailJobKind || msg.To != "admin@party.example" || !strings.Contains(msg.Text, "freeBytes: 1024") || sp.Key == "" {
				t.Errorf("%s: spec %+v message %+v", c.kind, sp, msg)
			}
			again, _ := m.AlertFanout(ctx, n)
			if again[0].Key != sp.Key {
				t.Errorf("a notice fanned out twice makes two keys: %q %q", sp.Key, again[0].Key)
			}
		}
	}
}

func TestARefusedSignInIsTriedAgain(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, mailtest.TLS)
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		st := openStore(t, dir)
		m := newMailer(t, st, srv, true)
		if _, err := st.Mail().UpdateSettings(context.Background(), func(s *store.MailSettings) error {
			var err error
			s.SMTP.PasswordSealed, err = m.Seal("a wrong one")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		r := run(t, st, m)
		ids, err := r.Enqueue(context.Background(), testMail(t, "host@party.example"))
		if err != nil {
			t.Fatal(err)
		}
		waitIdle(t, r)
		j, err := st.Jobs().Get(context.Background(), ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != store.JobQueued || j.Attempts[0].Outcome != store.OutcomeError || !strings.HasPrefix(j.Attempts[0].Result, "535") {
			t.Fatalf("job %s, attempt %+v: want queued again after the server's 535", j.Status, j.Attempts[0])
		}
	})
}
