// Package party plays a whole wedding against the real eventbox binary
// and measures it from the first photo to the last mail (make party):
// hundreds of guests, each from an address of its own, arrive over an
// evening played about twelve times faster than life and send a
// realistic mix of photos, videos through the resumable route (some cut
// and resumed), voice notes, texts and hearts through a link shaped like
// the box's radio (Link: the kernel's tc on a veth pair into a network
// namespace of the box's own); consoles and walls stay open all evening,
// the live moderation approves, the booth prints through CUPS, the
// daemon is killed three times and started again as systemd would. Then
// the event ends: the guests' mails go to a real SMTP server, the ZIP of
// everything is downloaded, the album PDF made and the event exported to
// a real WebDAV server, the ZIP and the export each timed beside their
// reference (zip -0, rclone copy) on the same machine.
//
// The figures and their bounds are in [Result]; [Result.Markdown] and
// [Charts] write the report (docs/performance.md carries the reference
// run). The test TestParty runs it; see the Makefile's party target.
package party

import (
	"context"
	b64 "encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"eventbox/internal/piprofile"
)

// Env is what a party runs against: the binary, the network, and the
// real servers of the hosts' home.
type Env struct {
	Bin     string
	Profile *piprofile.Profile
	// ToolCPUs is the CPUs the tool itself runs on (Profile.KeepOff), ""
	// for all of them.
	ToolCPUs string
	Scale    Scale
	Shape    Shape
	Link     *Link
	// Work is a folder for the daemon's data and the references' files.
	Work  string
	Media *Media
	// SMTP is the mail server as the box reaches it; Mails counts the
	// messages it accepted.
	SMTPHost           string
	SMTPPort           int
	SMTPUser, SMTPPass string
	Mails              func() int
	// CUPS is the print server's socket, Printer its cups-pdf queue,
	// Prints how many PDFs it wrote.
	CUPS, Printer string
	Prints        func() int
	// DAV is the WebDAV server as the box reaches it, DAVDir the folder
	// it serves.
	DAVURL, DAVUser, DAVPass, DAVDir string
	Rclone                           string
	Logf                             func(format string, args ...any)
	// BareURL, when not empty, is a bare HTTP server beside the daemon on
	// the guests' link: the health check's reference, asked alike.
	BareURL string
}

// Sample is one look at the box during the evening.
type Sample struct {
	At         time.Duration
	RSS        int64
	Goroutines int
	Variants   int
	// Sharpen is how many HEICs waited for their sharp variants.
	Sharpen int
	// Busy is how many guests were sending a file.
	Busy int
	Up   bool
}

// Result is what a party measured.
type Result struct {
	Scale   Scale
	Shape   Shape
	Profile string
	// ToolCPUs is the CPUs the tool ran on, "" for all of them.
	ToolCPUs string
	// Sent and Acked count the photos and videos sent and acknowledged;
	// Lost those acknowledged that are not on the box at the end.
	Sent, Acked, Lost int
	SentBytes         int64
	Videos, Cut       int
	Voice, Texts      int
	Hearts            int
	Retries           int
	// RetryWhy are the first retries' reasons.
	RetryWhy   []string
	Errors     []string
	Health     []Timed
	BareHealth []time.Duration // Env.BareURL asked alike: the link's own cost
	// Quota is what the stand-in's CPU quota did to the daemon over the
	// evening (nil without a profile).
	Quota           *piprofile.Throttling
	Pages           []time.Duration
	Console, Wall   []time.Duration
	Tiles, TileHEIC []time.Duration
	Samples         []Sample
	Downtime        []time.Duration
	// ThumbsAfter is how long after the last upload every photo had its
	// thumb.
	ThumbsAfter time.Duration
	// WallTail says what the walls' slowest twentieth were, TileHEICTail
	// the HEICs' album tiles'.
	WallTail, TileHEICTail Tail
	// SharpAfter is how long after the last upload every HEIC had its
	// sharp variants (the rough ones, its thumbnail item, come at once).
	SharpAfter time.Duration
	// Written is what the daemon wrote to the disk during the evening,
	// Stored the bytes of the files it holds at its end.
	Written, Stored int64
	DBBytes         int64
	Photos          int
	Prints          int
	Mails           int
	MailsAfter      time.Duration
	ZIP, ZIPRef     time.Duration
	ZIPBytes        int64
	Album           time.Duration
	AlbumBytes      int64
	Export, Rclone  time.Duration
	ExportBytes     int64
	Evening, Whole  time.Duration
}

// Timed is a latency measured at a moment of the evening.
type Timed struct {
	At, D time.Duration
}

type ack struct {
	at   time.Time
	size int64
	kind Kind
	heic bool
	file string
}

// party is one run's state.
type party struct {
	env     Env
	box     *Box
	home    *http.Client
	slug    string
	eventID string
	start   time.Time
	res     Result

	mu       sync.Mutex
	acks     map[string]ack
	approved []string
	console  map[string]time.Time
	wall     map[string]time.Time
	// heicTiles is when each HEIC's album tile first showed it.
	heicTiles map[string]time.Time
	busy      atomic.Int64
	lastAck   time.Time
	logged    int
	// downs are the moments the daemon was being killed and restarted.
	downs [][2]time.Duration
	tiles sync.WaitGroup
	// caughtUp answers catchUp, started at the last acknowledgement.
	caughtUp chan error
}

// Run plays the party of env and answers what it measured; an error means
// the party could not be played to its end.
func Run(ctx context.Context, env Env) (*Result, error) {
	p := &party{env: env, acks: map[string]ack{}, console: map[string]time.Time{}, wall: map[string]time.Time{}, heicTiles: map[string]time.Time{}}
	p.res.Scale, p.res.Shape = env.Scale, env.Shape
	if env.Profile != nil {
		p.res.Profile = env.Profile.String()
	}
	p.res.ToolCPUs = env.ToolCPUs
	whole := time.Now()
	dir := filepath.Join(env.Work, "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// The videos reach 300 MB: the hosts raised the limit from
	// the shipped 200 MB (MAX_VIDEO_MB).
	box, err := NewBox(env.Bin, dir, env.Link, env.Profile, "CUPS_SERVER="+env.CUPS,
		fmt.Sprintf("MAX_VIDEO_MB=%d", max(200, (env.Scale.VideoMax+(1<<20)-1)>>20)))
	if err != nil {
		return nil, err
	}
	p.box = box
	defer box.Stop()
	if err := box.Start(ctx); err != nil {
		return nil, err
	}
	p.home = client(nil, 30*time.Minute, Shape{})
	if err := p.setUp(ctx); err != nil {
		return nil, fmt.Errorf("setting the box up: %w", err)
	}
	if err := p.evening(ctx); err != nil {
		return nil, fmt.Errorf("the evening: %w", err)
	}
	p.res.Written = box.Written()
	p.res.Console, p.res.Wall = p.since(p.console), p.since(p.wall)
	p.res.WallTail = p.tail("slowest on the walls", p.wall, nil)
	p.res.TileHEICTail = p.tail("slowest HEIC tile", p.heicTiles, func(a ack) bool { return a.heic })
	if err := p.check(ctx, dir); err != nil {
		return nil, fmt.Errorf("checking what the box holds: %w", err)
	}
	if err := p.end(ctx, dir); err != nil {
		return nil, fmt.Errorf("the end of the party: %w", err)
	}
	p.res.Whole = time.Since(whole)
	return &p.res, nil
}

func (p *party) logf(format string, args ...any) {
	if p.env.Logf != nil {
		p.env.Logf("%s "+format, append([]any{time.Since(p.start).Round(time.Second)}, args...)...)
	}
}

// setUp signs the owner in and sets up what the hosts set up before the
// party: mail, printing, the cloud, the event (moderated before it shows,
// the guests' addresses collected, the guestbook with voice notes,
// videos), the booth, the walls and a gallery link.
func (p *party) setUp(ctx context.Context) error {
	home, h := p.box.HomeURL(), p.home
	steps := []struct {
		method, path string
		body, out    any
	}{
		{"POST", "/api/admin/login", map[string]any{"password": p.box.password}, nil},
		{"PUT", "/api/admin/mail", map[string]any{"smtp": map[string]any{"host": p.env.SMTPHost, "port": p.env.SMTPPort,
			"username": p.env.SMTPUser, "password": p.env.SMTPPass, "from": "box@party.example", "security": "none"},
			"adminEmail": "hosts@party.example"}, nil},
		{"PUT", "/api/admin/printing", map[string]any{"printer": p.env.Printer, "paper": "postcard", "autoBooth": true, "boothCopies": 1, "hostPrint": true}, nil},
		{"PUT", "/api/admin/cloud", map[string]any{"url": p.env.DAVURL, "user": p.env.DAVUser, "password": p.env.DAVPass, "folder": "party", "autoExport": false,
			// The hosts pasted their cloud folder's public link: the
			// guests' mails carry it (rclone's server makes no shares).
			"guestLink": "https://cloud.party.example/s/party"}, nil},
	}
	for _, s := range steps {
		if err := callJSON(ctx, h, home, s.method, s.path, s.body, s.out); err != nil {
			return err
		}
	}
	var created struct{ Event struct{ ID, Slug string } }
	err := callJSON(ctx, h, home, "POST", "/api/admin/events", map[string]any{"name": "Party", "moderation": "pre",
		"collectGuestEmails": true, "emailGuestsGallery": true, "guestbookEnabled": true, "guestbookVoice": true,
		"allowVideos": true, "maxPhotosPerGuest": 0}, &created)
	if err != nil {
		return err
	}
	p.slug, p.eventID = created.Event.Slug, created.Event.ID
	return nil
}

// evening plays the plan.
func (p *party) evening(ctx context.Context) error {
	s := p.env.Scale
	plan := NewPlan(s)
	home, h := p.box.HomeURL(), p.home
	var booth struct{ BoothKey string }
	if err := callJSON(ctx, h, home, "POST", "/api/admin/events/"+p.eventID+"/booth", map[string]any{}, &booth); err != nil {
		return err
	}
	var walls []string
	for range s.Walls {
		var w struct{ Wall struct{ URL string } }
		if err := callJSON(ctx, h, home, "POST", "/api/admin/events/"+p.eventID+"/walls", map[string]any{}, &w); err != nil {
			return err
		}
		walls = append(walls, w.Wall.URL[strings.LastIndex(w.Wall.URL, "/")+1:])
	}
	var share struct{ Share struct{ Token string } }
	if err := callJSON(ctx, h, home, "POST", "/api/admin/events/"+p.eventID+"/shares",
		map[string]any{"password": "party-gallery", "allowDownload": true}, &share); err != nil {
		return err
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	var watchers sync.WaitGroup
	watcher := 0
	nextWatcher := func() *http.Client {
		c := client(p.env.Link.Watchers[watcher], 0, p.env.Shape)
		watcher++
		return c
	}
	guestURL := p.box.GuestURL()
	p.start = time.Now()
	for i := range s.Consoles {
		c := nextWatcher()
		if err := callJSON(ctx, c, guestURL, "POST", "/api/admin/login", map[string]any{"password": p.box.password}, nil); err != nil {
			return err
		}
		watchers.Add(1)
		go func() { defer watchers.Done(); p.watchConsole(watchCtx, c, i == 0) }()
	}
	for _, token := range walls {
		c := nextWatcher()
		watchers.Add(1)
		go func() {
			defer watchers.Done()
			follow(watchCtx, c, guestURL, "/api/wall/"+token+"/live", func(ev sseEvent) {
				if ev.name == "reset" {
					// The wall reads what it shows again.
					var show struct{ Photos []struct{ ID string } }
					if callJSON(watchCtx, c, guestURL, "GET", "/api/wall/"+token, nil, &show) == nil {
						for _, ph := range show.Photos {
							p.seenID(p.wall, ph.ID)
						}
					}
					return
				}
				p.seen(p.wall, ev)
			})
		}()
	}
	health, bare := nextWatcher(), nextWatcher()
	health.Timeout, bare.Timeout = 30*time.Second, 30*time.Second
	watchers.Add(2)
	go func() { defer watchers.Done(); p.sampleHealth(watchCtx, health) }()
	go func() { defer watchers.Done(); p.sampleVitals(watchCtx) }()
	if p.env.BareURL != "" {
		watchers.Add(1)
		go func() { defer watchers.Done(); p.sampleBare(watchCtx, bare) }()
	}
	go every(watchCtx, 30*time.Second, func() {
		p.mu.Lock()
		p.logf("%d of %d acknowledged, %d retries, %d errors; %d sending", p.res.Acked, p.res.Sent, p.res.Retries, len(p.res.Errors), p.busy.Load())
		for _, e := range p.res.Errors[p.logged:] {
			p.logf("error: %s", e)
		}
		p.logged = len(p.res.Errors)
		p.mu.Unlock()
	})

	var actors sync.WaitGroup
	boothC := nextWatcher()
	actors.Add(3)
	go func() { defer actors.Done(); p.booth(ctx, boothC, booth.BoothKey, plan.Booth) }()
	go func() { defer actors.Done(); p.visits(ctx, share.Share.Token, plan.Visits, nextWatcher) }()
	go func() { defer actors.Done(); p.kills(ctx, plan.Kills) }()
	var guests sync.WaitGroup
	for g := range s.Guests {
		guests.Add(1)
		go func() { defer guests.Done(); p.guest(ctx, g, plan) }()
	}
	guests.Wait()
	actors.Wait()
	p.res.Evening = time.Since(p.start)
	if t, ok := p.box.Throttling(); ok {
		p.res.Quota = &t
	}
	p.logf("the evening is over: %d of %d acknowledged", p.res.Acked, p.res.Sent)
	p.caughtUp = make(chan error, 1)
	go func() { p.caughtUp <- p.catchUp(ctx) }()
	p.tiles.Wait()
	// The consoles and walls stay a little after the last photo.
	time.Sleep(5 * time.Second)
	stopWatch()
	watchers.Wait()
	return nil
}

// every calls f every d until ctx ends.
func every(ctx context.Context, d time.Duration, f func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f()
		}
	}
}

// seen notes when a stream first showed a photo.
func (p *party) seen(m map[string]time.Time, ev sseEvent) {
	if !strings.HasPrefix(ev.name, "photo.") || ev.name == "photo.removed" {
		return
	}
	var d struct{ ID string }
	if json.Unmarshal(ev.data, &d) == nil && d.ID != "" {
		p.seenID(m, d.ID)
	}
}

// seenID notes when photo id was first shown (a stream's event, or a
// page read again after a reset).
func (p *party) seenID(m map[string]time.Time, id string) {
	p.mu.Lock()
	if _, ok := m[id]; !ok {
		m[id] = time.Now()
	}
	p.mu.Unlock()
}

// watchConsole is a console open on the moderation screen; the first
// approves each new photo within half a second, as a host watching the
// live grid does.
func (p *party) watchConsole(ctx context.Context, c *http.Client, approves bool) {
	var pending []string
	var mu sync.Mutex
	if approves {
		go every(ctx, 500*time.Millisecond, func() {
			mu.Lock()
			ids := pending
			pending = nil
			mu.Unlock()
			if len(ids) == 0 {
				return
			}
			err := callJSON(ctx, c, p.box.GuestURL(), "POST", "/api/admin/events/"+p.eventID+"/photos", map[string]any{"action": "approve", "ids": ids}, nil)
			if err != nil {
				mu.Lock()
				pending = append(pending, ids...) // the box was down: again
				mu.Unlock()
				return
			}
			p.mu.Lock()
			p.approved = append(p.approved, ids...)
			p.mu.Unlock()
		})
	}
	follow(ctx, c, p.box.GuestURL(), "/api/admin/events/"+p.eventID+"/live", func(ev sseEvent) {
		if ev.name == "reset" {
			// The console reads the newest photos again; the host
			// approves those still waiting.
			var page struct{ Photos []struct{ ID, Status string } }
			if callJSON(ctx, c, p.box.GuestURL(), "GET", "/api/admin/events/"+p.eventID+"/photos", nil, &page) == nil {
				for _, ph := range page.Photos {
					p.seenID(p.console, ph.ID)
					if approves && ph.Status == "pending" {
						mu.Lock()
						pending = append(pending, ph.ID)
						mu.Unlock()
					}
				}
			}
			return
		}
		if approves && ev.name == "photo.added" {
			var d struct{ ID, Status string }
			if json.Unmarshal(ev.data, &d) == nil && d.Status == "pending" {
				mu.Lock()
				pending = append(pending, d.ID)
				mu.Unlock()
			}
		}
		if ev.name == "photo.added" {
			p.seen(p.console, ev)
		}
	})
}

// askHealth asks url for GET /api/health with c and answers how long
// the answer took and whether it was 200.
func askHealth(ctx context.Context, c *http.Client, url string) (time.Duration, bool) {
	start := time.Now()
	st, _, err := call(ctx, c, url, "GET", "/api/health", nil, "")
	return time.Since(start), err == nil && st == 200
}

// sampleHealth asks for GET /api/health every half second through the
// guests' link, as a phone would.
func (p *party) sampleHealth(ctx context.Context, c *http.Client) {
	every(ctx, 500*time.Millisecond, func() {
		at := time.Since(p.start)
		d, ok := askHealth(ctx, c, p.box.GuestURL())
		switch {
		case ctx.Err() != nil:
			return
		case !ok && p.down(at):
			return // the test's own kill
		case !ok:
			d += time.Minute // a failure counts as a miss
		}
		p.mu.Lock()
		p.res.Health = append(p.res.Health, Timed{At: at, D: d})
		p.mu.Unlock()
	})
}

// sampleBare asks Env.BareURL as sampleHealth asks the daemon, at the
// same pace: the link's own floor.
func (p *party) sampleBare(ctx context.Context, c *http.Client) {
	every(ctx, 500*time.Millisecond, func() {
		d, ok := askHealth(ctx, c, p.env.BareURL)
		if ctx.Err() != nil {
			return
		}
		if !ok {
			d += time.Minute
		}
		p.mu.Lock()
		p.res.BareHealth = append(p.res.BareHealth, d)
		p.mu.Unlock()
	})
}

// down reports whether the daemon was being killed and restarted at
// moment at of the evening (a health check then fails by design).
func (p *party) down(at time.Duration) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range p.downs {
		if at >= k[0]-time.Second && at <= k[1]+time.Second {
			return true
		}
	}
	return false
}

// sampleVitals reads the daemon's metrics every two seconds.
func (p *party) sampleVitals(ctx context.Context) {
	c := client(nil, 5*time.Second, Shape{})
	every(ctx, 2*time.Second, func() {
		v, err := p.box.Vitals(ctx, c)
		s := Sample{At: time.Since(p.start), Busy: int(p.busy.Load()), Up: err == nil}
		if err == nil {
			s.RSS, s.Goroutines, s.Variants, s.Sharpen = v.RSS, v.Goroutines, v.Variants, v.Sharpen
		}
		p.mu.Lock()
		p.res.Samples = append(p.res.Samples, s)
		p.mu.Unlock()
	})
}

// kills kills the daemon at each of the plan's moments.
func (p *party) kills(ctx context.Context, at []time.Duration) {
	for _, k := range at {
		if !p.until(ctx, k) {
			return
		}
		from := time.Since(p.start)
		p.mu.Lock()
		p.downs = append(p.downs, [2]time.Duration{from, from + time.Hour})
		p.mu.Unlock()
		d, err := p.box.Kill(ctx)
		p.mu.Lock()
		p.downs[len(p.downs)-1][1] = time.Since(p.start)
		p.res.Downtime = append(p.res.Downtime, d)
		if err != nil {
			p.res.Errors = append(p.res.Errors, "restart: "+err.Error())
		}
		p.mu.Unlock()
		p.logf("killed the daemon (kill -9); it answered again after %v", d.Round(time.Millisecond))
	}
}

// until waits until moment at of the evening; false when ctx ended.
func (p *party) until(ctx context.Context, at time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(time.Until(p.start.Add(at))):
		return true
	}
}

func (p *party) fail(what string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.res.Errors) < 50 {
		p.res.Errors = append(p.res.Errors, what+": "+err.Error())
	}
}

// retry does f up to six times, two seconds apart, as the guest page's
// queue tries again after a failed send (the box restarting, a lost
// connection); it counts the retries.
func (p *party) retry(ctx context.Context, what string, f func() error) bool {
	var err error
	for try := range 6 {
		if try > 0 {
			p.mu.Lock()
			p.res.Retries++
			p.mu.Unlock()
			select {
			case <-ctx.Done():
				return false
			case <-time.After(2 * time.Second):
			}
		}
		if err = f(); err == nil {
			return true
		}
		p.mu.Lock()
		if len(p.res.RetryWhy) < 20 {
			p.res.RetryWhy = append(p.res.RetryWhy, what+": "+err.Error())
		}
		p.mu.Unlock()
	}
	p.fail(what, err)
	return false
}

// guest is one phone's evening.
func (p *party) guest(ctx context.Context, g int, plan Plan) {
	if !p.until(ctx, plan.Arrive[g]) {
		return
	}
	c := client(p.env.Link.Guests[g], 10*time.Minute, p.env.Shape)
	url := p.box.GuestURL()
	if !p.retry(ctx, "join", func() error {
		return callJSON(ctx, c, url, "POST", "/api/e/"+p.slug+"/join", nil, nil)
	}) {
		return
	}
	if plan.Contact[g] {
		p.retry(ctx, "contact", func() error {
			return callJSON(ctx, c, url, "POST", "/api/e/"+p.slug+"/contact", map[string]any{"email": fmt.Sprintf("guest%03d@party.example", g)}, nil)
		})
	}
	rng := rand.New(rand.NewPCG(uint64(g), 5))
	for _, a := range plan.Actions[g] {
		if !p.until(ctx, a.At) {
			return
		}
		switch a.What {
		case DoPage:
			p.retry(ctx, "page", func() error {
				d, err := loadPage(ctx, c, url, p.slug)
				if err == nil {
					p.mu.Lock()
					p.res.Pages = append(p.res.Pages, d)
					p.mu.Unlock()
				}
				return err
			})
		case DoPhoto:
			p.photo(ctx, c, a)
		case DoVideo:
			p.video(ctx, c, a)
		case DoVoice, DoText:
			fields := map[string]string{"text": fmt.Sprintf("Congratulations from guest %d!", g)}
			var parts [][]byte
			if a.What == DoVoice {
				fields = map[string]string{"seconds": "0.8"} // the recording's length
				parts = [][]byte{p.env.Media.Voice()}
			}
			if p.retry(ctx, "guestbook", func() error {
				body, ct := multipartBody("audio", "voice.m4a", "audio/mp4", parts, fields)
				st, raw, err := call(ctx, c, url, "POST", "/api/e/"+p.slug+"/messages", body, ct)
				if err == nil && st != 201 {
					err = fmt.Errorf("answered %d %s", st, raw)
				}
				return err
			}) {
				p.mu.Lock()
				if a.What == DoVoice {
					p.res.Voice++
				} else {
					p.res.Texts++
				}
				p.mu.Unlock()
			}
		case DoHeart:
			p.mu.Lock()
			var id string
			if len(p.approved) > 0 {
				id = p.approved[rng.IntN(len(p.approved))]
			}
			p.mu.Unlock()
			if id == "" {
				continue
			}
			if p.retry(ctx, "heart", func() error {
				return callJSON(ctx, c, url, "PUT", "/api/e/"+p.slug+"/photos/"+id+"/heart", nil, nil)
			}) {
				p.mu.Lock()
				p.res.Hearts++
				p.mu.Unlock()
			}
		}
	}
}

// photo sends one photo as the guest page does and, once it is
// acknowledged, follows its album tile.
func (p *party) photo(ctx context.Context, c *http.Client, a Action) {
	parts, size, name := p.env.Media.Photo(a.Kind, a.N)
	ctype := "image/jpeg"
	switch {
	case a.Kind == HEIC:
		ctype = "image/heic"
	case strings.HasSuffix(name, ".png"):
		ctype = "image/png"
	}
	p.mu.Lock()
	p.res.Sent++
	p.res.SentBytes += size
	p.mu.Unlock()
	var id string
	p.busy.Add(1)
	ok := p.retry(ctx, "photo", func() error {
		body, ct := multipartBody("photo", name, ctype, parts, nil)
		st, raw, err := call(ctx, c, p.box.GuestURL(), "POST", "/api/e/"+p.slug+"/photos", body, ct)
		if err != nil {
			return err
		}
		if st != 201 && st != 200 {
			return fmt.Errorf("answered %d %s", st, raw)
		}
		var ans struct{ Photo struct{ ID string } }
		if err := json.Unmarshal(raw, &ans); err != nil || ans.Photo.ID == "" {
			return fmt.Errorf("an answer without the photo: %s", raw)
		}
		id = ans.Photo.ID
		return nil
	})
	p.busy.Add(-1)
	if !ok {
		return
	}
	at := p.acked(id, ack{size: size, kind: a.Kind, heic: a.Kind == HEIC, file: ".orig"})
	p.tiles.Add(1)
	go func() { defer p.tiles.Done(); p.tile(ctx, c, id, at, a.Kind == HEIC) }()
}

// acked records an acknowledged upload and answers when it came.
func (p *party) acked(id string, a ack) time.Time {
	a.at = time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, dup := p.acks[id]; !dup {
		p.res.Acked++
	}
	p.acks[id] = a
	p.lastAck = a.at
	return a.at
}

// tile does what the album tile of a photo just sent does: the preview
// at once (the camera's or the HEIC's thumbnail item, or the
// placeholder), then the thumb, asked again every 250 ms while the
// placeholder answers. A HEIC's rough thumb counts as shown: the tile
// shows it as it shows any thumb.
func (p *party) tile(ctx context.Context, c *http.Client, id string, acked time.Time, heic bool) {
	get := func(v string) string {
		req, _ := http.NewRequestWithContext(ctx, "GET", p.box.GuestURL()+"/api/media/"+id+"?v="+v, nil)
		res, err := c.Do(req)
		if err != nil {
			return ""
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return ""
		}
		return res.Header.Get("ETag")
	}
	shown := time.Duration(0)
	if get("preview") == `"`+id+`-preview"` {
		shown = time.Since(acked)
	}
	for shown == 0 && time.Since(acked) < 10*time.Minute && ctx.Err() == nil {
		// The thumb, or a HEIC's rough one (its thumbnail item) until
		// the sharp one is made: the tile shows either.
		if et := get("thumb"); et == `"`+id+`-thumb"` || et == `"`+id+`-thumb-rough"` {
			shown = time.Since(acked)
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if shown == 0 {
		shown = 10 * time.Minute
	}
	p.mu.Lock()
	p.res.Tiles = append(p.res.Tiles, shown)
	if heic {
		p.res.TileHEIC = append(p.res.TileHEIC, shown)
		p.heicTiles[id] = acked.Add(shown)
	}
	p.mu.Unlock()
}

// video sends one video through the resumable route as the guest page
// does: the poster, then the video in 8 MiB pieces; a cut one loses its
// connection part-way, asks the box where it stopped and sends the rest.
func (p *party) video(ctx context.Context, c *http.Client, a Action) {
	v := p.env.Media.Video(a.N, a.Size)
	url := p.box.GuestURL()
	p.mu.Lock()
	p.res.Sent++
	p.res.SentBytes += v.Size()
	p.res.Videos++
	if a.Cut {
		p.res.Cut++
	}
	p.mu.Unlock()
	p.busy.Add(1)
	defer p.busy.Add(-1)
	tus := func(method, path string, body io.Reader, size int64, headers ...string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, method, url+path, body)
		if err != nil {
			return nil, err
		}
		if body != nil {
			req.ContentLength = size
		}
		req.Header.Set("Origin", url)
		req.Header.Set("Tus-Resumable", "1.0.0")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		return res, nil
	}
	meta := func(kv ...string) string {
		var b []string
		for i := 0; i+1 < len(kv); i += 2 {
			b = append(b, kv[i]+" "+b64.StdEncoding.EncodeToString([]byte(kv[i+1])))
		}
		return strings.Join(b, ",")
	}
	poster := Poster(a.N)
	var loc, pid string
	if !p.retry(ctx, "video poster", func() error {
		res, err := tus("POST", "/api/e/"+p.slug+"/uploads", nil, 0, "Upload-Length", strconv.Itoa(len(poster)),
			"Upload-Metadata", meta("kind", "poster", "filetype", "image/jpeg"))
		if err != nil || res.StatusCode != 201 {
			return fmt.Errorf("creating the poster's upload: %v %v", err, status(res))
		}
		purl := res.Header.Get("Location")
		res, err = tus("PATCH", purl, strings.NewReader(string(poster)), int64(len(poster)),
			"Content-Type", "application/offset+octet-stream", "Upload-Offset", "0")
		if err != nil || res.StatusCode != 204 {
			return fmt.Errorf("sending the poster: %v %v", err, status(res))
		}
		pid = purl[strings.LastIndex(purl, "/")+1:]
		res, err = tus("POST", "/api/e/"+p.slug+"/uploads", nil, 0, "Upload-Length", strconv.FormatInt(v.Size(), 10),
			"Upload-Metadata", meta("filename", fmt.Sprintf("VID_%04d.mp4", a.N), "filetype", "video/mp4", "poster", pid))
		if err != nil || res.StatusCode != 201 {
			return fmt.Errorf("creating the video's upload: %v %v", err, status(res))
		}
		loc = res.Header.Get("Location")
		return nil
	}) {
		return
	}
	const piece = 8 << 20
	cutAt := int64(-1)
	if a.Cut {
		cutAt = int64(float64(v.Size()) * a.Cut01)
	}
	var id string
	off := int64(0)
	failures := 0
	for off < v.Size() && failures < 8 {
		end := min(off+piece, v.Size())
		var body io.Reader = v.Section(off, end)
		if cutAt > off && cutAt < end {
			body = &cutReader{r: body, left: cutAt - off}
			cutAt = -1
		}
		res, err := tus("PATCH", loc, body, end-off, "Content-Type", "application/offset+octet-stream", "Upload-Offset", strconv.FormatInt(off, 10))
		if err == nil && res.StatusCode == 204 {
			off = end
			if off == v.Size() {
				kind, rid, _ := strings.Cut(res.Header.Get("Upload-Result"), " ")
				if kind != "photo" || rid == "" {
					p.fail("video", fmt.Errorf("the last piece answered Upload-Result %q", res.Header.Get("Upload-Result")))
					return
				}
				id = rid
			}
			continue
		}
		// Cut, refused, or the box restarting: ask where it stopped, as a
		// tus client does, and go on from there.
		failures++
		p.mu.Lock()
		p.res.Retries++
		if len(p.res.RetryWhy) < 20 {
			why := status(res)
			if err != nil {
				why = err.Error()
			}
			p.res.RetryWhy = append(p.res.RetryWhy, fmt.Sprintf("video piece at %d of %d: %s", off, v.Size(), why))
		}
		p.mu.Unlock()
		for range 30 {
			time.Sleep(time.Second)
			if h, herr := tus("HEAD", loc, nil, 0); herr == nil && h.StatusCode == 200 {
				off, _ = strconv.ParseInt(h.Header.Get("Upload-Offset"), 10, 64)
				break
			}
		}
	}
	if id == "" && off == v.Size() {
		// Every byte is on the box but the last answer was lost: ask
		// for it, as the guest page does.
		st, raw, err := call(ctx, c, url, "GET", loc, nil, "")
		var ans struct{ Photo struct{ ID string } }
		if err == nil && (st == 200 || st == 201) && json.Unmarshal(raw, &ans) == nil {
			id = ans.Photo.ID
		}
	}
	if id == "" {
		p.fail("video", fmt.Errorf("not finished after %d failures at %d of %d", failures, off, v.Size()))
		return
	}
	p.acked(id, ack{size: v.Size(), file: ".video"})
}

func status(res *http.Response) string {
	if res == nil {
		return "no answer"
	}
	return res.Status
}

// cutReader gives left bytes of r, then fails: a phone's connection lost
// in the middle of a piece.
type cutReader struct {
	r    io.Reader
	left int64
}

func (c *cutReader) Read(b []byte) (int, error) {
	if c.left <= 0 {
		return 0, errors.New("the connection was lost")
	}
	n, err := c.r.Read(b[:min(int64(len(b)), c.left)])
	c.left -= int64(n)
	return n, err
}

// booth takes the booth's photos at the plan's moments from the booth
// tablet; each prints by itself (the printing settings' autoBooth).
func (p *party) booth(ctx context.Context, c *http.Client, key string, at []time.Duration) {
	url := p.box.GuestURL()
	if err := callJSON(ctx, c, url, "POST", "/api/e/"+p.slug+"/booth", map[string]any{"key": key}, nil); err != nil {
		p.fail("booth", err)
		return
	}
	for n, t := range at {
		if !p.until(ctx, t) {
			return
		}
		parts, size, name := p.env.Media.Photo(PhoneJPEG, 1_000_000+n)
		var id string
		p.mu.Lock()
		p.res.Sent++
		p.res.SentBytes += size
		p.mu.Unlock()
		if p.retry(ctx, "booth photo", func() error {
			body, ct := multipartBody("photo", name, "image/jpeg", parts, nil)
			st, raw, err := call(ctx, c, url, "POST", "/api/e/"+p.slug+"/photos", body, ct)
			if err == nil && st != 201 && st != 200 {
				err = fmt.Errorf("answered %d %s", st, raw)
			}
			var ans struct{ Photo struct{ ID string } }
			if err == nil {
				err = json.Unmarshal(raw, &ans)
				id = ans.Photo.ID
			}
			return err
		}) {
			p.acked(id, ack{size: size, file: ".orig"})
		}
	}
}

// visits are the gallery link's visitors: the password, the photos, a
// screenful of thumbs.
func (p *party) visits(ctx context.Context, token string, at []time.Duration, next func() *http.Client) {
	url := p.box.GuestURL()
	for _, t := range at {
		if !p.until(ctx, t) {
			return
		}
		c := next()
		p.retry(ctx, "gallery visit", func() error {
			if err := callJSON(ctx, c, url, "POST", "/api/g/"+token+"/unlock", map[string]any{"password": "party-gallery"}, nil); err != nil {
				return err
			}
			var page struct{ Photos []struct{ ID string } }
			if err := callJSON(ctx, c, url, "GET", "/api/g/"+token+"/photos", nil, &page); err != nil {
				return err
			}
			for i, ph := range page.Photos {
				if i == 12 {
					break
				}
				if st, _, err := call(ctx, c, url, "GET", "/api/media/"+ph.ID+"?v=thumb", nil, ""); err != nil || st != 200 {
					return fmt.Errorf("a gallery thumb: %d %v", st, err)
				}
			}
			return nil
		})
	}
}

// refCommand is a reference tool run as the daemon is: in the box's
// namespace and a control group of the same profile.
func (p *party) refCommand(ctx context.Context, name string, args ...string) (time.Duration, error) {
	var cmd *exec.Cmd
	var g *piprofile.Group
	if p.env.Profile != nil {
		var err error
		if g, err = p.env.Profile.NewGroup("ref"); err != nil {
			return 0, err
		}
		defer g.Close()
		inner := p.env.Link.Command(name, args...)
		cmd = g.Command(inner.Path, inner.Args[1:]...)
	} else {
		cmd = p.env.Link.Command(name, args...)
	}
	var out strings.Builder
	cmd.Stderr = &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s: %w: %s", name, err, out.String())
	}
	return time.Since(start), nil
}
