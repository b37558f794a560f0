package dto_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"eventbox/daemon/dto"
	"eventbox/store"
)

// fill sets every string of v (a pointer to a store record) to a marker
// naming its field, "~Path~", recursing into structs, slices (one element)
// and pointers; numbers get 7, booleans true.
func fill(v reflect.Value, path string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("~" + path + "~")
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(7)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), path)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), path)
	case reflect.Struct:
		for i := range v.NumField() {
			name := v.Type().Field(i).Name
			if path != "" {
				name = path + "." + name
			}
			fill(v.Field(i), name)
		}
	}
}

// markers lists the "~Path~" markers of a filled record.
func markers(v any) []string {
	var out []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			out = append(out, strings.Trim(v.String(), "~"))
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		}
	}
	walk(reflect.ValueOf(v))
	return out
}

func filled[T any]() T {
	var v T
	fill(reflect.ValueOf(&v).Elem(), "")
	return v
}

// TestAnswersHoldOnlyTheirFields fills every text of a store record and
// reads which of them an answer carries: exactly the ones listed. A hash,
// a secret or a guest's id that reached an answer would be a text too
// many; a field dropped, one too few.
func TestAnswersHoldOnlyTheirFields(t *testing.T) {
	account := filled[store.Account]()
	event := filled[store.Event]()
	share := filled[store.Share]()
	photo := filled[store.Photo]()
	message := filled[store.Message]()
	eventFields := []string{"ID", "Slug", "Name", "Description", "EventDate", "AccentColor", "AccessCode",
		"Moderation", "CaptureMode", "DefaultLocale", "Challenges.ID", "Challenges.Label", "WallStyle.Layout",
		"Frame", "CaptureFilters.Enabled", "QRStyle.Foreground", "QRStyle.Background", "QRStyle.Dots"}
	cases := []struct {
		name   string
		record any
		answer any
		shown  []string
		never  []string // said again, for the reader: what must stay out
	}{
		{"account", account, dto.AccountOf(account),
			[]string{"ID", "Username", "Role", "Name", "Email", "EventIDs"},
			[]string{"PasswordHash", "TOTPSecret", "RecoveryHashes"}},
		{"event", event, dto.EventOf(event), eventFields, []string{"BoothKeyHash", "EndShareID"}},
		{"event settings", event, dto.EventFieldsOf(event), slices.DeleteFunc(slices.Clone(eventFields),
			func(f string) bool { return f == "ID" || f == "Slug" }), []string{"BoothKeyHash", "EndShareID"}},
		{"event summary", event, dto.EventSummaryOf(event, store.EventCounts{}),
			[]string{"ID", "Slug", "Name", "EventDate"}, []string{"AccessCode", "BoothKeyHash"}},
		{"gallery link", share, dto.ShareOf("https://box", share, 0),
			[]string{"ID", "Token", "Label", "Password"}, []string{"PasswordHash"}},
		{"photo to the hosts", photo, dto.PhotoOf(photo, "", true),
			[]string{"ID", "GuestName", "Status", "ChallengeID", "SpotID"}, []string{"GuestID", "Fingerprint", "Video.MIME"}},
		{"photo to a guest", photo, dto.PhotoOf(photo, "g", false),
			[]string{"ID", "GuestName", "Status", "ChallengeID", "SpotID"}, []string{"GuestID", "Fingerprint"}},
		{"message", message, dto.MessageOf(message, "g"),
			[]string{"ID", "GuestName", "Text", "Status"}, []string{"GuestID", "AudioMIME"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, err := json.Marshal(c.answer)
			if err != nil {
				t.Fatal(err)
			}
			var shown []string
			for _, m := range markers(c.record) {
				if strings.Contains(string(raw), "~"+m+"~") {
					shown = append(shown, m)
				}
			}
			want := slices.Sorted(slices.Values(c.shown))
			slices.Sort(shown)
			if !slices.Equal(shown, want) {
				t.Fatalf("answer carries %v, want %v\n%s", shown, want, raw)
			}
			for _, f := range c.never {
				if slices.Contains(shown, f) {
					t.Fatalf("answer carries %s", f)
				}
			}
		})
	}
}

// TestEmptyValuesAnswerNullOrEmptyLists: optional values absent in a
// record are null, never "" or 0, and lists are [], never null.
func TestEmptyValuesAnswerNullOrEmptyLists(t *testing.T) {
	cases := []struct {
		name   string
		answer any
		want   []string // fragments of the JSON
	}{
		{"account", dto.AccountOf(store.Account{}), []string{`"eventIds":[]`, `"lastLoginAt":null`}},
		{"event", dto.EventOf(store.Event{}), []string{`"eventDate":null`, `"accentColor":null`, `"accessCode":null`,
			`"uploadsCloseAt":null`, `"defaultLocale":null`, `"challenges":[]`, `"captureFilters":{"enabled":[]}`,
			`"revealAt":null`, `"endedAt":null`, `"logoVersion":null`, `"boothEnabled":false`}},
		{"event summary", dto.EventSummaryOf(store.Event{}, store.EventCounts{Photos: 5, Videos: 1, Pending: 2, Messages: 9}),
			[]string{`"eventDate":null`, `"endedAt":null`, `"photos":5`, `"videos":1`, `"pending":2`}},
		{"gallery link", dto.ShareOf("https://box", store.Share{Token: "tok"}, 0),
			[]string{`"url":"https://box/g/tok"`, `"label":null`, `"password":null`, `"hasPassword":false`, `"expiresAt":null`, `"expired":false`}},
		{"photo", dto.PhotoOf(store.Photo{}, "", false), []string{`"guestName":null`, `"challengeId":null`,
			`"spotId":null`, `"takenAt":null`, `"thumbReady":false`}},
		{"message", dto.MessageOf(store.Message{}, ""), []string{`"guestName":null`, `"hasAudio":false`}},
		{"photo page", dto.PhotoPage(store.Page[store.Photo]{}, "", false), []string{`{"photos":[],"nextCursor":null}`}},
		{"message page", dto.MessagePage(store.Page[store.Message]{}, ""), []string{`{"messages":[],"nextCursor":null}`}},
		{"spots", dto.SpotsOf(nil), []string{`[]`}},
		{"challenges", dto.ChallengesOf(nil), []string{`[]`}},
	}
	for _, c := range cases {
		raw, err := json.Marshal(c.answer)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(string(raw), w) {
				t.Errorf("%s: %s lacks %s", c.name, raw, w)
			}
		}
	}
	// Values that are there are not null.
	if s := dto.NullString("x"); s == nil || *s != "x" {
		t.Fatalf("NullString(x) = %v", s)
	}
	if n := dto.NullTime(-1); n == nil || *n != -1 {
		t.Fatalf("NullTime(-1) = %v", n)
	}
}

func TestPhotoOfForItsViewer(t *testing.T) {
	guest := store.NewID()
	base := store.Photo{ID: "p", GuestID: guest, Status: store.StatusVisible, Downloads: 3, Favorite: true, Hearts: 2}
	with := func(edit func(p *store.Photo)) store.Photo { p := base; edit(&p); return p }
	cases := []struct {
		name   string
		photo  store.Photo
		viewer string
		admin  bool
		mine   bool
		// variants is the admin's variants field, "" when absent.
		variants string
		thumb    bool
		video    int64 // durationMs, 0 without video
	}{
		{"the guest's own photo", with(func(p *store.Photo) { p.Variants = true }), guest, false, true, "", true, 0},
		{"another guest's", with(func(p *store.Photo) { p.Variants = true }), store.NewID(), false, false, "", true, 0},
		{"nobody's viewer is not an import's owner", with(func(p *store.Photo) { p.GuestID = "" }), "", false, false, "", false, 0},
		{"the hosts see the ready variants", with(func(p *store.Photo) { p.Variants = true }), "", true, false, "ready", true, 0},
		{"the hosts see variants being made", base, "", true, false, "pending", false, 0},
		{"the hosts see variants set aside, the original shown", with(func(p *store.Photo) { p.VariantsFailed = true }),
			"", true, false, "failed", true, 0},
		{"variants on disk are ready, whatever an earlier attempt said", with(func(p *store.Photo) {
			p.Variants, p.VariantsFailed = true, true
		}), "", true, false, "ready", true, 0},
		{"a video says how long it is", with(func(p *store.Photo) {
			p.Video = &store.VideoInfo{DurationMs: 4200, MIME: "video/mp4", Size: 9}
		}), guest, false, true, "", false, 4200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := dto.PhotoOf(c.photo, c.viewer, c.admin)
			if d.Mine != c.mine || d.ThumbReady != c.thumb || d.Hearts != 2 {
				t.Fatalf("mine %v thumbReady %v hearts %d", d.Mine, d.ThumbReady, d.Hearts)
			}
			raw, _ := json.Marshal(d)
			hasAdmin := strings.Contains(string(raw), `"downloads"`) || strings.Contains(string(raw), `"favorite"`) ||
				strings.Contains(string(raw), `"variants"`)
			if hasAdmin != c.admin {
				t.Fatalf("admin fields in %s: %v, want %v", raw, hasAdmin, c.admin)
			}
			if c.admin && (d.Variants == nil || *d.Variants != c.variants || *d.Downloads != 3 || !*d.Favorite) {
				t.Fatalf("admin fields %s", raw)
			}
			if (d.Video != nil) != (c.video != 0) || (d.Video != nil && d.Video.DurationMs != c.video) {
				t.Fatalf("video %s", raw)
			}
		})
	}
}

func TestMessageOfForItsViewer(t *testing.T) {
	guest := store.NewID()
	m := store.Message{ID: "m", GuestID: guest, Text: "Hi", Status: store.StatusPending, Seconds: 3.5, AudioMIME: "audio/ogg"}
	cases := []struct {
		name     string
		msg      store.Message
		viewer   string
		mine     bool
		hasAudio bool
	}{
		{"the guest's own", m, guest, true, true},
		{"another guest's", m, store.NewID(), false, true},
		{"the hosts'", m, "", false, true},
		{"nobody's viewer and no guest", store.Message{Text: "x"}, "", false, false},
		{"text only", store.Message{GuestID: guest, Text: "x"}, guest, true, false},
	}
	for _, c := range cases {
		d := dto.MessageOf(c.msg, c.viewer)
		if d.Mine != c.mine || d.HasAudio != c.hasAudio || d.Text != c.msg.Text || d.Seconds != c.msg.Seconds {
			t.Fatalf("%s: %+v", c.name, d)
		}
	}
}

func TestPagesCarryTheirCursor(t *testing.T) {
	guest := store.NewID()
	photos := dto.PhotoPage(store.Page[store.Photo]{
		Items: []store.Photo{{ID: "b", GuestID: guest, CreatedAt: 2}, {ID: "a", CreatedAt: 1}}, Next: 1,
	}, guest, false)
	if len(photos.Photos) != 2 || photos.Photos[0].ID != "b" || !photos.Photos[0].Mine || photos.Photos[1].Mine ||
		photos.NextCursor == nil || *photos.NextCursor != 1 {
		t.Fatalf("photo page %+v", photos)
	}
	messages := dto.MessagePage(store.Page[store.Message]{
		Items: []store.Message{{ID: "y", CreatedAt: 9}, {ID: "x", GuestID: guest, CreatedAt: 8}}, Next: 8,
	}, guest)
	if len(messages.Messages) != 2 || messages.Messages[0].ID != "y" || !messages.Messages[1].Mine ||
		messages.NextCursor == nil || *messages.NextCursor != 8 {
		t.Fatalf("message page %+v", messages)
	}
}

func TestShareOfExpiry(t *testing.T) {
	cases := []struct {
		expiresAt, now int64
		expired        bool
	}{
		{0, 1 << 50, false},
		{1000, 999, false},
		{1000, 1000, true},
		{1000, 1001, true},
	}
	for _, c := range cases {
		d := dto.ShareOf("o", store.Share{ExpiresAt: c.expiresAt, PasswordHash: "h"}, c.now)
		if d.Expired != c.expired || !d.HasPassword || (d.ExpiresAt == nil) != (c.expiresAt == 0) {
			t.Fatalf("expires %d at %d: %+v", c.expiresAt, c.now, d)
		}
	}
}

func TestListsAreCopies(t *testing.T) {
	e := store.Event{CaptureFilters: store.CaptureFilters{Enabled: []string{"mono"}}, BoothKeyHash: "h"}
	d := dto.EventOf(e)
	d.CaptureFilters.Enabled[0] = "sepia"
	if e.CaptureFilters.Enabled[0] != "mono" {
		t.Fatal("the answer's filters share the record's array")
	}
	if !d.BoothEnabled {
		t.Fatal("a booth key does not enable the booth")
	}
}
