package events

import (
	"context"
	"sort"
	"strings"

	"eventbox/daemon/mail"
	"eventbox/store"
)

// galleryMailKey keeps one unfinished gallery mail per guest of an event
// (store.JobSpec.Key).
func galleryMailKey(eventID, guestID string) string { return "gallery/" + eventID + "/" + guestID }

// endMails prepares what ending e queues (docs/design.md, "Ending an event";
// docs/decisions.md, "Mail"): the plan for store.EndEvent, whose Jobs
// composes the guests' gallery mails and the hosts' summary inside the
// end's transaction. It reads what the mails say beforehand (names,
// counts, places), since nothing else may be read inside that
// transaction. password is the generated password of the link, if any.
type endMails struct {
	origin   string
	domain   string
	password string
	names    map[string]string // guest id → name
	locales  map[string]string // guest id → the guest page's language
	summary  *mail.Summary     // nil: no summary
}

// prepareEnd reads what the end's mails need. summaryTo is where the
// hosts' summary goes ("" = none).
func (a *API) prepareEnd(ctx context.Context, e store.Event, origin, summaryTo, password string) (*endMails, error) {
	m := &endMails{origin: origin, domain: a.cfg.Outbound.MailDomain(ctx), password: password, names: map[string]string{}, locales: map[string]string{}}
	if e.EmailGuestsGallery {
		guests, err := a.store.Guests().WithContact(ctx, e.ID)
		if err != nil {
			return nil, err
		}
		for _, g := range guests {
			m.names[g.ID], m.locales[g.ID] = g.Name, g.Locale
		}
	}
	if e.NotifyAdminSummary && summaryTo != "" {
		counts, err := a.store.Events().Counts(ctx, e.ID)
		if err != nil {
			return nil, err
		}
		top, err := a.store.Stats().TopGuests(ctx, []string{e.ID}, 5)
		if err != nil {
			return nil, err
		}
		spots, err := a.store.Spots().List(ctx, e.ID)
		if err != nil {
			return nil, err
		}
		sum := &mail.Summary{To: summaryTo, Counts: counts, Password: password, Domain: m.domain}
		if e.EmailGuestsGallery && !mail.Reachable(origin) {
			sum.CloudNote = "mail.summaryNoCloud"
			if c, ok, err := a.store.Cloud().Settings(ctx); err != nil {
				return nil, err
			} else if ok && (c.AutoExport || c.GuestLink != "") {
				sum.CloudNote = "mail.summaryCloud"
			}
		}
		for _, g := range top {
			name := g.Guest.Name
			if name == "" {
				name = "—"
			}
			sum.Top = append(sum.Top, mail.Tally{Label: name, Photos: g.Photos})
		}
		for _, sp := range spots {
			n, err := a.store.Spots().PhotoCount(ctx, e.ID, sp.ID)
			if err != nil {
				return nil, err
			}
			sum.Places = append(sum.Places, mail.Tally{Label: sp.Label, Photos: n})
		}
		m.summary = sum
	}
	return m, nil
}

// jobs composes the end's mails; it runs inside the end's transaction.
// One mail per address: two phones of one guest get one mail, in the
// language of the first one's page. A guest's mail carries the box's own
// gallery link only when it opens from the internet (mail.Reachable);
// otherwise it waits for the hosts' cloud copy (the cloud export), and
// is composed again with its link when it is sent.
func (m *endMails) jobs(e store.Event, sh *store.Share, contacts map[string]string) (store.EndJobs, error) {
	out := store.EndJobs{Guests: map[string]store.JobSpec{}}
	url := ""
	if sh != nil {
		url = m.origin + "/g/" + sh.Token
	}
	reachable := mail.Reachable(m.origin)
	if e.EmailGuestsGallery && (sh != nil || !reachable) {
		ids := make([]string, 0, len(contacts))
		for guestID := range contacts {
			ids = append(ids, guestID)
		}
		sort.Strings(ids)
		seen := map[string]bool{}
		for _, guestID := range ids {
			addr := contacts[guestID]
			if seen[strings.ToLower(addr)] {
				continue
			}
			seen[strings.ToLower(addr)] = true
			ref := mail.GalleryRef{EventID: e.ID, GuestName: m.names[guestID], Locale: m.locales[guestID]}
			if sh != nil {
				ref.ExpiresAt = sh.ExpiresAt
			}
			if reachable {
				ref.URL, ref.Locked = url, sh.PasswordHash != ""
				if e.GalleryMailIncludesPassword {
					ref.Password = m.password
				}
			}
			g := mail.Gallery{Event: e, Locale: ref.Locale, To: addr, GuestName: ref.GuestName, URL: ref.URL,
				ExpiresAt: ref.ExpiresAt, Password: ref.Password, Locked: ref.Locked, Cloud: !reachable, Domain: m.domain}
			msg, err := mail.GalleryMessage(g)
			if err != nil {
				return store.EndJobs{}, err
			}
			msg.Gallery = &ref
			spec, err := mail.Spec(msg, galleryMailKey(e.ID, guestID))
			if err != nil {
				return store.EndJobs{}, err
			}
			out.Guests[guestID] = spec
		}
	}
	if m.summary != nil {
		sum := *m.summary
		sum.Event, sum.URL, sum.GuestMails = e, url, len(out.Guests)
		msg, err := mail.SummaryMessage(sum)
		if err != nil {
			return store.EndJobs{}, err
		}
		spec, err := mail.Spec(msg, "summary/"+e.ID)
		if err != nil {
			return store.EndJobs{}, err
		}
		out.Other = append(out.Other, spec)
	}
	return out, nil
}
