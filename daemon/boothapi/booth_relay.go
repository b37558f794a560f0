package boothapi

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"eventbox/booth"
	"eventbox/daemon/web"
)

// Booth timings (docs/decisions.md, "Logo, QR codes, duplicate, end, booth").
const (
	// DefaultCountdown is the LED's countdown after a press; the booth
	// page counts down as long before it takes the photo.
	DefaultCountdown = 3 * time.Second
	// boothBusyMax bounds the busy light after the countdown; the booth's
	// upload ends it sooner.
	boothBusyMax = 10 * time.Second
)

// Relay connects the box's booth hardware to the booth pages. A button
// press becomes a trigger message for every connected booth page (the box
// has one button, whichever event it serves). The LED shows ready while at
// least one booth page is connected, countdown then busy after a press,
// and is off otherwise; every change of the LED also goes to the pages as a
// status message, and a page that connects gets the current one.
//
// A press while no page is connected, or during a countdown or busy
// period, is ignored: a guest hammering the button does not queue photos.
type Relay struct {
	dev       booth.Device
	hub       *booth.Hub
	log       *slog.Logger
	now       func() time.Time
	countdown time.Duration

	mu      sync.Mutex
	streams map[string]map[*boothStream]struct{} // connected pages by event id
	epochs  map[string]int                       // bumped by drop, by event id
	closed  bool
	phase   booth.State // Countdown or Busy while a capture runs, else Off
	gen     int         // bumped with each phase, so that a stale timer does nothing
	timer   *time.Timer
	shown   booth.State
}

// boothStream is one connected booth page.
type boothStream struct {
	cancel context.CancelFunc
}

// RelayConfig sets up a Relay.
type RelayConfig struct {
	// Device is the box's booth button and LED; nil: none
	// (booth.NoOp).
	Device booth.Device
	// Logger logs presses and the hardware's faults; nil: discarded.
	Logger *slog.Logger
	// Now stamps the messages; nil: time.Now.
	Now func() time.Time
	// Countdown is how long the LED shows the countdown after a press,
	// matching the booth page's countdown; 0: DefaultCountdown.
	Countdown time.Duration
}

// NewRelay makes the relay of cfg's device. Run runs it.
func NewRelay(cfg RelayConfig) *Relay {
	dev, countdown, now := cfg.Device, cfg.Countdown, cfg.Now
	if dev == nil {
		dev = booth.NoOp()
	}
	if countdown <= 0 {
		countdown = DefaultCountdown
	}
	if now == nil {
		now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Relay{
		dev: dev, hub: booth.NewHub(), log: log, now: now, countdown: countdown,
		streams: make(map[string]map[*boothStream]struct{}),
		epochs:  make(map[string]int),
	}
}

// Serve streams the event's booth messages to one booth page (the caller
// has checked that it is the event's booth device) until the page goes,
// the event's booth is turned off or its key replaced (Drop), or the
// server shuts down (Close).
//
// It subscribes first, then counts the page as connected (LED ready, the
// current status published to it), and only then writes the headers and
// streams: whatever is published from the subscription on, a press while
// the headers go out included, reaches the page.
func (b *Relay) Serve(w http.ResponseWriter, r *http.Request, eventID string) error {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	st := &boothStream{cancel: cancel}
	b.mu.Lock()
	closed, epoch := b.closed, b.epochs[eventID]
	b.mu.Unlock()
	if closed {
		// The page's EventSource tries again.
		return web.ErrUnavailable
	}
	msgs, unsubscribe := b.hub.Subscribe(eventID)
	defer unsubscribe()
	b.add(eventID, epoch, st)
	defer b.remove(eventID, st)
	if err := streamBooth(ctx, w, msgs); err != nil {
		// The answer has started: nothing more can be said to the page.
		b.log.DebugContext(r.Context(), "booth stream ended", "event", eventID, "error", err)
	}
	return nil
}

// add counts a subscribed stream as a connected page, unless the event's
// booth changed (Drop) since the stream was authorised.
func (b *Relay) add(eventID string, epoch int, st *boothStream) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.epochs[eventID] != epoch {
		st.cancel()
		return
	}
	set := b.streams[eventID]
	if set == nil {
		set = make(map[*boothStream]struct{})
		b.streams[eventID] = set
	}
	set[st] = struct{}{}
	if !b.update() {
		b.hub.Publish(eventID, booth.StatusMessage(b.shown, b.now()))
	}
}

// remove forgets a stream; it does nothing for one that never counted.
func (b *Relay) remove(eventID string, st *boothStream) {
	b.mu.Lock()
	defer b.mu.Unlock()
	set := b.streams[eventID]
	if _, ok := set[st]; !ok {
		return
	}
	delete(set, st)
	if len(set) == 0 {
		delete(b.streams, eventID)
	}
	if b.connected() == 0 && b.phase != booth.Off {
		// No page is left to take the photo.
		b.setPhase(booth.Off, 0)
		return
	}
	b.update()
}

// Drop ends the event's booth streams: its booth was turned off, its key
// replaced, or the event deleted. A stream being set up for the event at
// this moment ends too.
func (b *Relay) Drop(eventID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.epochs[eventID]++
	for st := range b.streams[eventID] {
		st.cancel()
	}
}

// Close ends every booth stream and refuses new ones: the server is
// shutting down.
func (b *Relay) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for _, set := range b.streams {
		for st := range set {
			st.cancel()
		}
	}
}

// connected is the number of connected booth pages. The caller holds mu.
func (b *Relay) connected() int {
	n := 0
	for _, set := range b.streams {
		n += len(set)
	}
	return n
}

// update shows the state the LED should show now, and tells the pages if
// it changed; it reports whether it did. The caller holds mu.
func (b *Relay) update() bool {
	want := b.phase
	if want == booth.Off && b.connected() > 0 {
		want = booth.Ready
	}
	if want == b.shown {
		return false
	}
	b.shown = want
	b.dev.SetLED(want)
	b.hub.Broadcast(booth.StatusMessage(want, b.now()))
	return true
}

// setPhase starts a capture phase (Countdown, Busy) lasting d, or ends the
// capture (Off). The caller holds mu.
func (b *Relay) setPhase(p booth.State, d time.Duration) {
	b.phase = p
	b.gen++
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if p != booth.Off {
		gen := b.gen
		b.timer = time.AfterFunc(d, func() { b.phaseOver(gen) })
	}
	b.update()
}

// phaseOver moves a capture on when its phase gen has run its time:
// countdown to busy, busy to the end.
func (b *Relay) phaseOver(gen int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if gen != b.gen {
		return
	}
	if b.phase == booth.Countdown {
		b.setPhase(booth.Busy, boothBusyMax)
		return
	}
	b.setPhase(booth.Off, 0)
}

// press relays one button press.
func (b *Relay) press(ctx context.Context, p booth.Press) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.connected() == 0:
		b.log.DebugContext(ctx, "booth button pressed with no booth page connected")
		return
	case b.phase != booth.Off:
		b.log.DebugContext(ctx, "booth button pressed during a capture", "state", b.phase.String())
		return
	}
	n := b.hub.Broadcast(booth.TriggerMessage(p))
	b.log.InfoContext(ctx, "booth button pressed", "pages", n)
	b.setPhase(booth.Countdown, b.countdown)
}

// Captured ends the busy light: a booth device has sent its photo.
func (b *Relay) Captured() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.phase == booth.Busy {
		b.setPhase(booth.Off, 0)
	}
}

// Run runs the device and relays its presses until ctx ends, then closes
// the device (LED off) and ends the streams; it returns nil then. A device
// that stops early is closed at once; the booth pages keep working without
// the button. Call it once: it is the relay's service.Service.
func (b *Relay) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := b.dev.Run(ctx); err != nil {
			b.log.WarnContext(ctx, "booth hardware stopped", "error", err)
		}
	})
	presses := b.dev.Presses()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case p, ok := <-presses:
			if !ok {
				break loop
			}
			b.press(ctx, p)
		}
	}
	wg.Wait()
	if err := b.dev.Close(); err != nil {
		b.log.WarnContext(ctx, "closing booth hardware", "error", err)
	}
	<-ctx.Done()
	b.Close()
	b.mu.Lock()
	b.gen++
	if b.timer != nil {
		b.timer.Stop()
	}
	b.mu.Unlock()
	return nil
}
