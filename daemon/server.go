package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	"eventbox/assets"
	"eventbox/daemon/albums"
	"eventbox/daemon/api/accounts"
	"eventbox/daemon/api/box"
	"eventbox/daemon/api/events"
	"eventbox/daemon/api/gallery"
	"eventbox/daemon/api/guests"
	"eventbox/daemon/api/hearts"
	"eventbox/daemon/api/moderation"
	"eventbox/daemon/api/portal"
	"eventbox/daemon/api/sending"
	"eventbox/daemon/api/wall"
	"eventbox/daemon/archive"
	"eventbox/daemon/backups"
	"eventbox/daemon/backupzip"
	"eventbox/daemon/boothapi"
	"eventbox/daemon/clock"
	"eventbox/daemon/cloudexport"
	"eventbox/daemon/cookie"
	"eventbox/daemon/ingest"
	"eventbox/daemon/jobs"
	"eventbox/daemon/live"
	"eventbox/daemon/mail"
	"eventbox/daemon/mediafile"
	"eventbox/daemon/metrics"
	"eventbox/daemon/network"
	"eventbox/daemon/outbox"
	"eventbox/daemon/passwords"
	"eventbox/daemon/photos"
	"eventbox/daemon/printing"
	"eventbox/daemon/printing/cups"
	"eventbox/daemon/resumable"
	"eventbox/daemon/service"
	"eventbox/daemon/setup"
	"eventbox/daemon/storage"
	"eventbox/daemon/update"
	"eventbox/daemon/variants"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/netsetup"
	"eventbox/qr"
	"eventbox/s3store"
	"eventbox/store"
	"eventbox/webdav"
)

// Server is the HTTP service of eventbox: the API of the spec, the pages,
// and the background work they set off. Create it with New; it is safe for
// concurrent use.
type Server struct {
	cfg   Config
	store *store.Store
	log   *slog.Logger
	now   func() time.Time

	handler  http.Handler
	ui       *uiFiles
	variants *variants.Maker
	jobs     *jobs.Runner
	outbox   *outbox.Outbox
	mailer   *mail.Mailer
	// exporter is the cloud export's job kind, cloud its routes
	// (daemon/cloudexport); sending the mail and webhook settings
	// (daemon/api/sending).
	exporter *cloudexport.Exporter
	cloud    *cloudexport.API
	// remote opens the cloud drive of the settings (webdav), for
	// the export and its routes.
	remote func(context.Context, webdav.Settings) (*webdav.Remote, error)
	// bucket opens the S3-compatible bucket of the settings (s3store).
	bucket func(s3store.Settings) (*s3store.Bucket, error)
	// albums writes the printable album, for the hosts and the printer;
	// zips streams the archives of the hosts and the gallery links.
	albums  *albums.Maker
	zips    *archive.Streamer
	sending *sending.API
	network *network.API // the Network screen (daemon/network), added
	// activity is each client address's last request and requests in
	// progress, for the crowd watch (daemon/network).
	activity *web.Activity
	// printing prints through CUPS: its routes and the print job kind
	// (daemon/printing).
	printing *printing.API
	limits   limiters
	guards   guards
	qr       *qr.Renderer
	booth    *boothapi.Relay
	live     *live.Hub
	names    *ownNames
	uploads  *uploadGate
	ingest   *ingest.Ingester
	// photos takes an upload from its body to its answer, for the
	// guests, the booth and the hosts' import (daemon/photos).
	photos  *photos.Receiver
	updater *update.Updater
	// updateBackups makes the backup before an update (backups, unless
	// Config.Backups gives another).
	updateBackups Backups
	metrics       *metrics.Metrics

	// events answers the hosts' event routes (daemon/api/events).
	events *events.API

	// cookies signs the gr_guest, gr_share and gr_device cookies;
	// visitors reads them, and the console session, into who asks.
	cookies  *cookie.Codec
	visitors *visitor.Resolver
	// files sends media files (Range, download names, no position).
	files *mediafile.Sender
	// signIn and accounts are the console's sign-in and the owners'
	// accounts and invitations (daemon/api/accounts).
	signIn   *accounts.SignIn
	accounts *accounts.API

	// moderation is the hosts' photos, album, guestbook and archives;
	// gallery the gallery links, for the hosts and their visitors.
	moderation *moderation.API
	gallery    *gallery.API
	hearts     *hearts.API

	// storage is the storage guard (daemon/storage); backups makes the
	// box's own backups (daemon/backups); box is the box's own routes
	// (backup, restore, updates, stats, health, …: daemon/api/box).
	storage *storage.Guard
	backups *backups.Service
	box     *box.API
	// clock knows whether the box's time is right (daemon/clock).
	clock *clock.Service

	// placeholder makes, the first time a page needs it, the JPEG served
	// for a thumb or display that is not there (placeholder.go).
	placeholder func() ([]byte, error)

	// guests answers the front page, the guest page and the media
	// (daemon/api/guests).
	guests *guests.API
	// The live streams, wall links and the booth (daemon/live,
	// daemon/api/wall, daemon/boothapi): changes publishes what changes of
	// photos and messages to the live hub.
	changes  *live.Publisher
	liveAPI  *live.API
	walls    *wall.API
	boothAPI *boothapi.API

	// setup is the first-run setup page's routes (daemon/setup).
	setup *setup.API
	// portal is the captive portal page's routes and the memory of the
	// devices that went through it (daemon/api/portal).
	portal *portal.API

	// resumable is the guests' resumable uploads (tus, daemon/resumable).
	resumable *resumable.Server

	// routeTable is every route routes() registered, in its order
	// (Routes).
	routeTable []Route
}

// limiters are the rate limits of docs/decisions.md, one per route kind.
type limiters struct {
	login       *web.RateLimiter // per address
	loginUser   *web.RateLimiter // per username
	unlock      *web.RateLimiter // event unlock, per address
	shareUnlock *web.RateLimiter // gallery unlock, per address
	invite      *web.RateLimiter // invitation use, per address
	upload      *web.RateLimiter // guest uploads, per guest
	heart       *web.RateLimiter // hearts and their undo, per address
	booth       *web.RateLimiter // booth device set-up, per address
	portal      *web.RateLimiter // captive portal continues, per device (portal.Device: IPv6 by /64)
}

// New builds a Server over an open store. cfg must have passed Validate;
// st must not be nil and stays owned by the caller (close it after Run
// returns).
//
// It builds in dependency order, each step over what the steps before it
// made and nothing after: the core (limits, cookies, who asks, the job
// runner, the live hub), then the services (storage, backups, clock,
// variants, mail, outbox, export, ingest; each registers its job kinds
// with the runner), then the areas (the routes' handlers), then the route
// table and its middleware.
func New(ctx context.Context, cfg Config, st *store.Store) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{cfg: cfg, store: st, log: cfg.Logger.With("component", "daemon"), now: cfg.Now}
	for _, step := range []func(context.Context, *Server) error{
		buildCore, buildBoxServices, buildMediaServices,
		buildBoxAreas, buildEventAreas, buildPhotoAreas,
	} {
		if err := step(ctx, s); err != nil {
			return nil, err
		}
	}
	s.handler = s.middleware(s.routes())
	return s, nil
}

// buildCore makes what every later step uses and nothing of theirs: the
// rate limits, the cookies and the resolver of who asks, the job runner
// (with no kind yet: each service registers its own), the live hub and
// its publisher, the upload gate, the box's names, the QR renderer and
// the pages.
func buildCore(ctx context.Context, s *Server) error {
	cfg, st := s.cfg, s.store
	s.limits = limiters{
		login:       web.NewRateLimiter(10, time.Minute, cfg.Now),
		loginUser:   web.NewRateLimiter(10, time.Minute, cfg.Now),
		unlock:      web.NewRateLimiter(10, time.Minute, cfg.Now),
		shareUnlock: web.NewRateLimiter(10, time.Minute, cfg.Now),
		invite:      web.NewRateLimiter(10, time.Minute, cfg.Now),
		upload:      web.NewRateLimiter(120, time.Minute, cfg.Now),
		heart:       web.NewRateLimiter(120, time.Minute, cfg.Now),
		booth:       web.NewRateLimiter(10, time.Minute, cfg.Now),
		portal:      web.NewRateLimiter(10, time.Minute, cfg.Now),
	}
	s.guards = newGuards(cfg.Now)
	key, err := st.Secrets().Key(ctx, "guest-cookie", 32)
	if err != nil {
		return fmt.Errorf("loading cookie key: %w", err)
	}
	if s.cookies, err = cookie.New(key); err != nil {
		return err
	}
	s.visitors = visitor.New(st, cfg.Now, s.cookies)
	s.files = mediafile.New(st.Media(), s.visitors)
	if s.jobs, err = jobs.New(jobs.Config{Store: st, Logger: cfg.Logger}); err != nil {
		return fmt.Errorf("setting up the job runner: %w", err)
	}
	// The live streams' hub, and the publisher of what changes of photos
	// and messages (the variants, the uploads and the areas tell it).
	s.live = live.NewHub(live.Config{})
	s.changes = live.NewPublisher(s.live, st)
	s.uploads = newUploadGate(cfg.UploadWindow, cfg.UploadMinBytes, lingerFactor*int64(max(cfg.MaxUploadMB, cfg.MaxVideoMB))<<20)
	s.names = newOwnNames(cfg)
	// The crowd watch's view of each client address (middleware.go,
	// daemon/network).
	s.activity = web.NewActivity(cfg.Now, 0)
	s.placeholder = sync.OnceValues(makePlaceholder)
	if s.qr, err = qr.NewRendererFS(assets.Fonts(), assets.CaptionFonts()...); err != nil {
		return fmt.Errorf("loading qr fonts: %w", err)
	}
	pages := cfg.Pages
	if pages == nil {
		if pages, err = PreparePages(cfg.UI); err != nil {
			return err
		}
	}
	s.ui = pages.files
	return nil
}

// buildBoxServices makes the box's own services over the core: updates,
// the storage guard, backups, the metrics and the clock.
func buildBoxServices(ctx context.Context, s *Server) error {
	cfg, st, runner := s.cfg, s.store, s.jobs
	var err error
	if s.updater = cfg.Updater; s.updater == nil {
		s.updater, err = update.New(update.Config{Dir: filepath.Join(cfg.DataDir, "update"), URL: cfg.UpdateURL,
			Key: cfg.UpdateKey, Version: cfg.Version, Now: cfg.Now, Logger: s.log.With("component", "update")})
		if err != nil {
			return err
		}
	}
	s.storage = storage.New(storage.Config{Dir: cfg.DataDir, Margin: StorageMargin(cfg), Free: cfg.Statfs,
		Logger: s.log.With("component", "storage"), Now: cfg.Now, Store: st,
		Nudge: func(kind string) { runner.Notify(kind) }})
	bk, err := backups.New(ctx, backups.Config{Store: st, Logger: s.log.With("component", "backup"), Now: cfg.Now,
		App: cfg.Version, Margin: s.storage.Margin(), Free: s.storage.FreeSpace, Jobs: runner,
		Target: backupzip.TargetConfig{DataDir: cfg.DataDir, Mounts: cfg.Mounts, USBRoots: cfg.USBRoots}})
	if err != nil {
		return err
	}
	s.backups = bk
	// The backup before an update, and the backup age of the metrics:
	// the box's own backups unless a test gives others.
	if s.updateBackups = cfg.Backups; s.updateBackups == nil {
		s.updateBackups = s.backups
	}
	if s.metrics, err = s.newMetrics(); err != nil {
		return err
	}
	// The box's clock: synced, set by a host, or unsure; once set, what the
	// wrong clock dated is re-dated (clock_wiring.go).
	s.clock = newClock(cfg, s.log, func(ctx context.Context, from, to time.Time, offset time.Duration) error {
		return redate(ctx, st, bk, runner, s.log, from, to, offset)
	})
	updates := update.NewWorker(update.WorkerConfig{Updater: s.updater, Version: cfg.Version, Restart: cfg.Restart, Logger: s.log})
	if err := runner.Register(updates.Kind(), s.backups.Kind()); err != nil {
		return fmt.Errorf("setting up the job runner: %w", err)
	}
	return s.backups.ScheduleNightly(ctx)
}

// buildMediaServices makes the services of the photos and of what leaves
// the box: the variants, the cloud export, mail, the outbox, the booth's
// relay, the ingest of uploads and their way to a stored photo, and the
// printable album.
func buildMediaServices(_ context.Context, s *Server) error {
	cfg, st, runner := s.cfg, s.store, s.jobs
	s.variants = variants.New(variants.Config{Store: st, Workers: cfg.ImageWorkers, OutOfProcess: cfg.ImageOutOfProcess,
		Logger: s.log.With("component", "variants"), Jobs: runner, Processed: s.metrics.Processing,
		Made: func(ctx context.Context, p store.Photo) {
			// p is the record before: with no display it was not on the
			// wall; with rough variants it was, and its sharp display
			// replaces the rough one there.
			var before map[string]bool
			if live.PhotoOnWall(p) {
				before = map[string]bool{p.ID: true}
			}
			s.changes.PhotosChanged(ctx, p.EventID, []string{p.ID}, false, before)
		}})
	// The cloud export (daemon/cloudexport): its job kind; its routes are
	// an area.
	s.remote = func(ctx context.Context, set webdav.Settings) (*webdav.Remote, error) {
		return webdav.New(ctx, set, webdav.Config{Transport: cfg.CloudTransport})
	}
	s.bucket = func(set s3store.Settings) (*s3store.Bucket, error) {
		return s3store.New(set, s3store.Config{Transport: cfg.CloudTransport})
	}
	s.exporter = cloudexport.New(cloudexport.Config{Store: st, Logger: s.log, Now: cfg.Now, Remote: s.remote,
		Bucket: s.bucket, BoxName: boxName(cfg.OwnHosts),
		Notify: runner.Notify, Display: s.variants.Sharp, Quiet: cfg.ExportQuiet,
		Uploads: s.uploads.activity,
		Naming:  archive.Naming{}, ShareTransport: cfg.CloudTransport,
		WakeMail: func(ctx context.Context) {
			if _, err := runner.Wake(ctx, store.MailJobKind); err != nil {
				s.log.WarnContext(ctx, "mails not woken after an export", "error", err)
			}
		}})
	mailKey, err := mail.LoadKey(st.Dir())
	if err != nil {
		return fmt.Errorf("loading the mail key: %w", err)
	}
	// A guest's gallery mail without a link that opens from home waits
	// for the cloud copy's.
	cloudLink := func(ctx context.Context, e store.Event, expires int64) (string, string, error) {
		l, err := s.exporter.GuestLink(ctx, e, expires)
		return l.URL, l.Password, err
	}
	if s.mailer, err = mail.New(mail.Config{Store: st, Key: mailKey, Logger: s.log, TLS: cfg.MailTLS, Now: cfg.Now,
		CloudLink: cloudLink}); err != nil {
		return fmt.Errorf("setting up mail: %w", err)
	}
	s.outbox, err = outbox.New(outbox.Config{Store: st, Logger: cfg.Logger, Now: cfg.Now, Jobs: runner,
		Window: cfg.NoticeWindow, Fanouts: []outbox.Fanout{s.mailer.AlertFanout}})
	if err != nil {
		return fmt.Errorf("setting up the outbox: %w", err)
	}
	if err := runner.Register(append([]jobs.Kind{s.variants.Kind(), s.variants.SharpenKind(), s.exporter.Kind(), s.mailer.Kind()},
		s.outbox.Kinds()...)...); err != nil {
		return fmt.Errorf("setting up the job runner: %w", err)
	}
	s.booth = boothapi.NewRelay(boothapi.RelayConfig{Device: cfg.Booth, Logger: s.log.With("component", "booth"),
		Now: cfg.Now, Countdown: cfg.BoothCountdown})
	s.ingest = ingest.New(ingest.Config{Records: st.Photos(), Media: st.Media(), Logger: s.log,
		Jobs: s.photoJobs, Stored: func(ctx context.Context, p store.Photo) {
			s.photoStored()
			s.changes.PhotosChanged(ctx, p.EventID, []string{p.ID}, true, nil)
		}})
	s.photos = photos.NewReceiver(photos.Config{Ingest: s.ingest, Variants: s.variants,
		MaxUploadMB: cfg.MaxUploadMB, MaxVideoMB: cfg.MaxVideoMB, MaxVideoSeconds: cfg.MaxVideoSeconds,
		Uploaded: s.metrics.Upload})
	// The printable album, for the hosts' download and the printer.
	s.albums = albums.New(albums.Config{Store: st, Fonts: s.qr.Fonts(), Logger: s.log, Now: cfg.Now,
		Display: guestVariants{s.variants}.Sharp})
	// The ZIP streamer the hosts' archives and the gallery links share.
	s.zips = archive.New(archive.Config{Store: st, JPEG: s.variants.Pool(), Logger: s.log})
	return nil
}

// guestVariants is the variant maker as the guest routes and the album
// use it: Ensure makes a photo's display now if it is missing, and answers
// whether there is one (false, without an error, for a photo whose
// variants cannot be made: one the box cannot read has none).
type guestVariants struct{ *variants.Maker }

func (v guestVariants) Ensure(ctx context.Context, id string) (bool, error) {
	return found(v.Maker.Ensure(ctx, id))
}

// Sharp is Ensure for the album, which prints the sharp display: a photo
// with rough variants (a HEIC's thumbnail item) is sharpened now.
func (v guestVariants) Sharp(ctx context.Context, id string) (bool, error) {
	return found(v.Maker.Sharp(ctx, id))
}

func found(err error) (bool, error) {
	if errors.Is(err, variants.ErrNoVariants) {
		return false, nil
	}
	return err == nil, err
}

// boxNotices is the outbox as the guestbook and printing use it: a
// notice's job (a new message's message.created, the printer's attention),
// then the outbox woken once it is stored.
type boxNotices struct {
	make   func(kind, eventID string, data any) []store.JobSpec
	outbox *outbox.Outbox
}

func (n boxNotices) Notice(kind, eventID string, data any) []store.JobSpec {
	return n.make(kind, eventID, data)
}

func (n boxNotices) MessageNotice(m store.Message) []store.JobSpec {
	return n.make(store.NoticeMessageCreated, m.EventID,
		messageNotice{MessageID: m.ID, GuestName: m.GuestName, Voice: m.HasAudio()})
}

func (n boxNotices) Queued() { n.outbox.Notify() }

// eventOutbound is what an event's end sends out, as the events area uses
// it: the webhook notice (boxNotices'), the mails' domain and a guest's
// gallery mail's state, the mail runner woken with the outbox, the cloud
// export.
type eventOutbound struct {
	boxNotices
	mailer *mail.Mailer
	guests *guests.API
	cloud  *cloudexport.API
	runner *jobs.Runner
}

func (o eventOutbound) MailDomain(ctx context.Context) string { return o.mailer.Domain(ctx) }

func (o eventOutbound) MailState(ctx context.Context, g store.Guest) (string, error) {
	return o.guests.GalleryMailState(ctx, g)
}

func (o eventOutbound) Queued() {
	o.runner.Notify(store.MailJobKind)
	o.boxNotices.Queued()
}

func (o eventOutbound) AutoExport(ctx context.Context, eventID string) bool {
	return o.cloud.AutoExport(ctx, eventID)
}

// buildBoxAreas makes the areas of the box and its owners: sign-in and
// accounts, the first-run setup, the cloud and mail settings, the
// Network screen, the captive portal and the box's own routes.
func buildBoxAreas(ctx context.Context, s *Server) error {
	cfg, st, runner := s.cfg, s.store, s.jobs
	// Accounts and sign-in.
	dummyHash, err := passwords.Hash(passwords.Generate(), cfg.PasswordCost)
	if err != nil {
		return err
	}
	acctCfg := accounts.Config{Store: st, Visitors: s.visitors, Cookies: s.cookies, Logger: s.log, Now: cfg.Now, Clock: s.clock,
		DataDir: cfg.DataDir, AdminUsername: cfg.AdminUsername, AdminPassword: cfg.AdminPassword,
		PasswordCost: cfg.PasswordCost, DummyHash: dummyHash,
		Limits: accounts.Limits{Address: s.limits.login, Username: s.limits.loginUser, Guesses: s.guards.signIn, Device: s.guards.device},
		Origin: s.origin, MailDomain: s.mailer.Domain,
		MailQueued: func() { runner.Notify(store.MailJobKind) }}
	s.signIn, s.accounts = accounts.NewSignIn(acctCfg), accounts.NewAPI(acctCfg)
	if err := s.signIn.EnsureFirstOwner(ctx); err != nil {
		return err
	}
	// The first-run setup page of a box nobody set up yet (daemon/setup).
	s.setup = setup.New(setup.Config{Store: st, Logger: s.log.With("component", "setup"), Now: cfg.Now,
		DataDir: cfg.DataDir, PasswordCost: cfg.PasswordCost, Window: cfg.SetupWindow,
		HotspotWiFi: cfg.HotspotWiFi, Network: cfg.SetupNetwork,
		SetClock: func(ctx context.Context, t time.Time) error {
			_, err := s.clock.Set(ctx, t)
			return err
		}})
	s.cloud = cloudexport.NewAPI(cloudexport.APIConfig{Store: st, Visitors: s.visitors, Logger: s.log,
		Remote: s.remote, Bucket: s.bucket, Notify: runner.Notify, Origin: s.origin, BoxName: boxName(cfg.OwnHosts)})
	// The mail and webhook settings (daemon/api/sending).
	s.sending = sending.New(sending.Config{Store: st, Logger: s.log, Mailer: s.mailer, Jobs: runner, Webhooks: s.outbox})
	// The Network screen (daemon/network), added: NetworkManager through
	// cfg.NetworkRunner; the crowd watch's counts, and the idle phones it
	// lets go, told apart from busy ones by s.activity; the addresses
	// several browsers come from (network.NATWatch, fed in middleware.go).
	netCfg := network.Config{Jobs: st.Jobs(), Settings: st.Network(), PhoneCapacity: cfg.PhoneCapacity,
		QR: s.qr, Logger: s.log.With("component", "network"), Samples: st.Network(), Activity: s.activity,
		Crowd: network.CrowdConfig{Every: cfg.PhoneSampleEvery, FullNotice: cfg.FullNotice, LetGoIdle: cfg.LetGoIdle, Now: cfg.Now},
		NAT:   network.NewNATWatch(cfg.Now)}
	if cfg.NetworkRunner != nil {
		netCfg.Box = network.NM{WiFi: netsetup.WiFi{Runner: cfg.NetworkRunner, Root: cfg.SysRoot, Logger: netCfg.Logger}}
	}
	s.network = network.New(netCfg)
	s.portal = portal.New(portal.Config{Passes: portal.NewPasses(cfg.Now, cfg.PortalPass, 0),
		Limit: s.limits.portal, Event: s.eventTarget, Origin: s.origin})
	// The box's own routes: backups and restore, updates, stats,
	// storage, About, metrics, health, the API reference, the CA.
	s.box = box.New(box.Config{Store: st, Clock: s.clock, Visitors: s.visitors, Logger: s.log, Now: cfg.Now, Version: cfg.Version,
		DataDir: cfg.DataDir, Storage: s.storage, Backups: s.backups, UpdateBackups: s.updateBackups,
		Updater: s.updater, Restart: cfg.Restart, Jobs: runner, Metrics: s.metrics.Handler(),
		MetricsToken: cfg.MetricsToken, BoxCA: cfg.BoxCA, BoothName: photos.BoothName,
		AbortStream: func(r *http.Request, err error) error { return web.AbortStream(s.log, r, err) }, WriteError: s.writeError})
	return nil
}

// buildEventAreas makes the areas of an event's guests and hosts: the
// guest page and the media, the hosts' event settings, and printing
// (over both; it registers its job kind).
func buildEventAreas(_ context.Context, s *Server) error {
	cfg, st, runner := s.cfg, s.store, s.jobs
	// The guests' routes, over what the daemon keeps: limits, notices, live updates, variants.
	s.guests = guests.New(guests.Config{Store: st, Visitors: s.visitors, Logger: s.log, Now: cfg.Now,
		Photos: s.photos, Ingest: s.ingest, Files: s.files, EventCode: s.guards.eventCode, AllowUpload: s.allowUpload,
		Origin: s.origin, HTTPS: box.HTTPS(cfg.HTTPSPort, cfg.BoxCA),
		Variants: guestVariants{s.variants}, Placeholder: s.servePlaceholder,
		BoothCaptured: s.booth.Captured, Uploaded: s.metrics.Upload,
		Notices: boxNotices{make: s.notice, outbox: s.outbox}, Live: s.changes})
	// The hosts' events: settings, logo, QR codes, signs, end, booth key, places, addresses.
	s.events = events.New(events.Config{Store: st, Visitors: s.visitors, Logger: s.log, Now: cfg.Now,
		PasswordCost: cfg.PasswordCost, Origin: s.origin,
		Forms: s.ingest, Files: s.files, QR: s.qr, HotspotWiFi: cfg.HotspotWiFi,
		Outbound: eventOutbound{boxNotices: boxNotices{make: s.notice, outbox: s.outbox},
			mailer: s.mailer, guests: s.guests, cloud: s.cloud, runner: runner},
		Deleted: func(eventID string) {
			s.booth.Drop(eventID)
			s.live.Forget(eventID)
		}})
	// Printing through CUPS (daemon/printing): its routes and job kind.
	s.printing = printing.New(printing.Config{Store: st, Visitors: s.visitors, Logger: s.log, Now: cfg.Now,
		CUPS: cups.New(cfg.CUPS), Pool: s.variants.Pool(), QR: s.qr, Origin: s.origin, DefaultOrigin: s.defaultOrigin(),
		Notify: func() { runner.Notify(store.PrintJobKind) }, Notices: boxNotices{make: s.notice, outbox: s.outbox},
		Poll: cfg.PrintPoll, DeviceSchemes: cfg.PrintDevices,
		Documents: printDocuments{albums: s.albums, events: s.events}})
	if err := runner.Register(s.printing.Kind()); err != nil {
		return fmt.Errorf("setting up the job runner: %w", err)
	}
	return nil
}

// printDocuments makes the documents a print may carry: the album
// (unless another album is being made) and the signs, as GET …/signage.
type printDocuments struct {
	albums *albums.Maker
	events *events.API
}

func (d printDocuments) Album(ctx context.Context, e store.Event, w io.Writer) error {
	done, ok := d.albums.TryStart()
	if !ok {
		return errors.New("another album is being made")
	}
	defer done()
	ids, err := d.albums.PhotoIDs(ctx, e.ID, false)
	if err != nil {
		return err
	}
	_, _, err = d.albums.Write(ctx, w, e, ids, 2, false)
	return err
}

func (d printDocuments) Signage(ctx context.Context, e store.Event, q url.Values, origin string) ([]byte, string, error) {
	return d.events.SignagePDF(ctx, e, q, origin)
}

// buildPhotoAreas makes the areas over an event's photos: moderation, the
// gallery links, hearts, the live streams, the wall links, the booth, and
// the resumable uploads.
func buildPhotoAreas(_ context.Context, s *Server) error {
	cfg, st := s.cfg, s.store
	s.moderation = moderation.New(moderation.Config{Store: st, Visitors: s.visitors, Logger: s.log, Now: cfg.Now,
		PhotoPage: photos.PhotoPageSize, MessagePage: photos.MessagePageSize, Archive: s.zips,
		Album: s.albums, Live: s.changes, RetryVariants: s.variants.Nudge, Photos: s.photos})
	s.gallery = gallery.New(gallery.Config{Store: st, Visitors: s.visitors, Logger: s.log, Now: cfg.Now,
		PasswordCost: cfg.PasswordCost, PhotoPage: photos.PhotoPageSize, MessagePage: photos.MessagePageSize,
		Origin: s.origin, LinkPass: s.guards.linkPass, Archive: s.zips, ServeLogo: s.events.ServeLogo,
		Photos: st.Photos()})
	// Hearts (daemon/api/hearts): a joined guest's or a gallery browser's.
	s.hearts = hearts.New(hearts.Config{Store: st, Cookies: s.cookies, Logger: s.log,
		GuestOf: s.guests.GuestOf, GuestSees: s.guests.SeesPhoto, GalleryShare: s.gallery.UnlockedShare,
		Live: s.changes})
	// Live streams, wall links and the booth's routes.
	s.liveAPI = live.NewAPI(live.APIConfig{Hub: s.live, Store: st, Visitors: s.visitors, Logger: s.log})
	s.walls = wall.New(wall.Config{Store: st, Visitors: s.visitors, Logger: s.log, Now: cfg.Now, Hub: s.live,
		Files: s.files, QR: s.qr, Origin: s.origin, QRStyle: s.events.QRStyle})
	s.boothAPI = boothapi.New(boothapi.Config{Store: st, Visitors: s.visitors, Logger: s.log, Relay: s.booth,
		QR: s.qr, Origin: s.origin})
	// Resumable uploads (daemon/resumable): their whole file goes
	// through the spec's upload routes, inside the PATCH's upload slot.
	var err error
	s.resumable, err = resumable.New(resumable.Config{Dir: filepath.Join(cfg.DataDir, "uploads"),
		Logger: s.log.With("component", "uploads"), Now: cfg.Now,
		Photos: s.api(s.guests.Upload), Messages: s.api(s.guests.PostMessage),
		Who: s.guestUploader, Room: s.storage.Room, Store: st,
		MaxPhoto: int64(cfg.MaxUploadMB) << 20, MaxVideo: int64(cfg.MaxVideoMB) << 20, MaxVoice: guests.MaxVoiceBytes})
	return err
}

// Handler is the whole HTTP service: API, pages and middleware.
func (s *Server) Handler() http.Handler { return s.handler }

// The http.Server limits (docs/decisions.md, "Slow and concurrent
// uploads").
const (
	// readHeaderTimeout bounds the request line and headers.
	readHeaderTimeout = 10 * time.Second
	// idleTimeout closes a kept-alive connection with no next request.
	idleTimeout = 2 * time.Minute
	// maxHeaderBytes caps the request headers: the box's cookies are a
	// few hundred bytes, a browser's are at most 4 KiB each.
	maxHeaderBytes = 32 << 10
)

// HTTPServer returns an http.Server for Handler with the box's limits:
// headers within readHeaderTimeout and maxHeaderBytes, idle connections
// closed after idleTimeout, and booth streams ended at Shutdown
// (EndStreams). Bodies have no global deadline: upload routes pace their
// own (upload_gate.go), and there is no write timeout because ZIP, PDF and
// video answers take long. Set its Addr or give it a listener.
func (s *Server) HTTPServer() *http.Server {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.With("component", "http").Handler(), slog.LevelWarn),
	}
	srv.RegisterOnShutdown(s.EndStreams)
	return srv
}

// Run does the background work until ctx is cancelled, then waits for
// every part of it to stop. The parts are the services below, run side
// by side by a service.Group, which restarts a part that fails after a
// growing wait; a new background part is one more line in the list. It
// closes Config.Booth before it returns, and ends the booth streams.
// Call it once.
func (s *Server) Run(ctx context.Context) error {
	return service.NewGroup(service.GroupConfig{Logger: s.log},
		// The job runner: photo variants (daemon/variants), mail
		// (daemon/mail) and, as they come, every other kind of
		// background job.
		service.Member{Name: "jobs", Service: s.jobs},
		// The network: when a route or an interface changes, the
		// deliveries waiting for a retry are tried at once.
		service.Member{Name: "network", Service: outbox.NetWatcher{Changes: s.cfg.NetChanges,
			Settle: s.cfg.NetSettle, Logger: s.log.With("component", "network"),
			Wake: s.wakeOutbox}},
		// The booth's button and LED.
		service.Member{Name: "booth", Service: s.booth},
		// The storage guard's watch of the free space.
		service.Member{Name: "storage", Service: s.storage},
		// Media files no record names, and stale temp files, while
		// the box runs (the same sweep as at start, with its bulk rule).
		service.Member{Name: "media sweep", Service: service.Func(func(ctx context.Context) error {
			s.sweepMedia(ctx)
			return nil
		})},
		// Resumable uploads abandoned past their expiry.
		service.Member{Name: "uploads", Service: s.resumable},
		// The first-run setup: marks the box set up once it is.
		service.Member{Name: "setup", Service: s.setup},
		// Expired sessions and invitations.
		// The hotspot's fall-back after a home Wi-Fi join (daemon/network), added.
		service.Member{Name: "wifi fall-back", Service: s.network.Fallback()},
		// The phones on the hotspot: counted, and idle ones let go when
		// it is nearly full (daemon/network).
		service.Member{Name: "crowd", Service: s.network.Crowd()},
		service.Member{Name: "sessions", Service: service.Func(func(ctx context.Context) error {
			s.sweepSessions(ctx)
			return nil
		})},
	).Run(ctx)
}

// Restarts is closed when the server asks to be replaced by a fresh one
// over a freshly opened store: after a restore was decided, the next
// store.Open swaps the restored data in. cmd/eventbox shuts this server
// down in order, opens the store again and starts a new Server on the same
// listener.
func (s *Server) Restarts() <-chan struct{} { return s.box.Restarts() }

// wakeOutbox makes the jobs of the kinds that talk to the network and
// wait for a retry due now.
func (s *Server) wakeOutbox(ctx context.Context) {
	kinds := s.jobs.WakeOnSuccessKinds()
	if len(kinds) == 0 {
		return
	}
	if n, err := s.jobs.Wake(ctx, kinds...); err != nil {
		s.log.WarnContext(ctx, "waking the outbox", "error", err)
	} else if n > 0 {
		s.log.InfoContext(ctx, "network changed: waiting deliveries woken", "jobs", n)
	}
}

// EndStreams ends every open booth and live event stream and refuses new
// ones. Give
// it to http.Server.RegisterOnShutdown: Shutdown waits for open requests,
// and a stream only ends when its page goes. The pages' EventSource
// reconnects to the next server by itself.
func (s *Server) EndStreams() {
	s.booth.Close()
	s.live.Close()
}

// mediaSweepEvery is how often the running daemon sweeps the media area.
const mediaSweepEvery = 10 * time.Minute

// sweepMedia runs store.SweepRunning at once, then every mediaSweepEvery
// (the first logs "media swept" with at_start=true, whatever it found):
// a file an upload cut by a crash left in media/ goes within the grace
// period and one sweep, and too many at once are quarantined
// (store.QuarantineOver). The first sweep is the start's reconciliation
// (cmd/eventbox opens the store with MediaSweepLater).
func (s *Server) sweepMedia(ctx context.Context) {
	t := time.NewTicker(mediaSweepEvery)
	defer t.Stop()
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
		res, err := s.store.SweepRunning(ctx, store.DefaultMediaGrace)
		if err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "media sweep failed", "error", err)
		}
		// The start's reconciliation always says what it did (after a
		// power cut, what it removed is what the cut left); later sweeps
		// only when they did something.
		if first || res.Removed+res.Quarantined+res.Temp > 0 {
			s.log.InfoContext(ctx, "media swept", "at_start", first, "removed", res.Removed, "quarantined", res.Quarantined,
				"quarantine", res.Quarantine, "temp_cleared", res.Temp, "kept_recent", res.Recent)
		}
	}
}

// sweepSessions removes sessions unused for longer than their lifetime,
// and expired invitations, hourly.
func (s *Server) sweepSessions(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		cutoff := s.now().Add(-visitor.SessionLifetime).UnixMilli()
		if n, err := s.store.Sessions().DeleteBefore(ctx, cutoff); err != nil {
			s.log.WarnContext(ctx, "session cleanup failed", "error", err)
		} else if n > 0 {
			s.log.InfoContext(ctx, "expired sessions removed", "count", n)
		}
		if n, err := s.store.Invitations().DeleteExpired(ctx); err != nil {
			s.log.WarnContext(ctx, "invitation cleanup failed", "error", err)
		} else if n > 0 {
			s.log.InfoContext(ctx, "expired invitations removed", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// SweepUploads removes the resumable uploads past their expiry now, as
// the uploads service does every few minutes, and answers how many.
func (s *Server) SweepUploads() (int, error) { return s.resumable.Sweep() }
