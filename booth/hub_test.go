package booth_test

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"periph.io/x/conn/v3/gpio"

	"eventbox/booth"
)

var at = time.Date(2025, 6, 14, 15, 30, 0, 0, time.UTC)

func TestStateString(t *testing.T) {
	for s, want := range map[booth.State]string{booth.Off: "off", booth.Ready: "ready", booth.Countdown: "countdown", booth.Busy: "busy"} {
		if got := s.String(); got != want {
			t.Errorf("State(%d).String() = %q, want %q", s, got, want)
		}
	}
}

// recv waits up to a second for a message.
func recv(t *testing.T, ch <-chan booth.Message) (booth.Message, bool) {
	t.Helper()
	select {
	case m, ok := <-ch:
		return m, ok
	case <-time.After(time.Second):
		t.Fatal("no message within 1s")
		return booth.Message{}, false
	}
}

func TestHub(t *testing.T) {
	t.Run("a message reaches the event's subscribers and no other event's", func(t *testing.T) {
		h := booth.NewHub()
		a1, c1 := h.Subscribe("ev-a")
		defer c1()
		a2, c2 := h.Subscribe("ev-a")
		defer c2()
		b, c3 := h.Subscribe("ev-b")
		defer c3()
		if n := h.Publish("ev-a", booth.TriggerMessage(booth.Press{At: at})); n != 2 {
			t.Errorf("Publish delivered to %d subscribers, want 2", n)
		}
		for _, ch := range []<-chan booth.Message{a1, a2} {
			if m, _ := recv(t, ch); m.Type != booth.TypeTrigger || !m.At.Equal(at) {
				t.Errorf("got %+v, want the trigger", m)
			}
		}
		select {
		case m := <-b:
			t.Errorf("the other event's subscriber got %+v", m)
		default:
		}
	})
	t.Run("broadcast reaches every event's subscribers", func(t *testing.T) {
		h := booth.NewHub()
		a, c1 := h.Subscribe("ev-a")
		defer c1()
		b, c2 := h.Subscribe("ev-b")
		defer c2()
		if n := h.Broadcast(booth.TriggerMessage(booth.Press{At: at})); n != 2 {
			t.Errorf("Broadcast delivered to %d subscribers, want 2", n)
		}
		recv(t, a)
		recv(t, b)
	})
	t.Run("a slow subscriber drops messages instead of blocking the publisher", func(t *testing.T) {
		h := booth.NewHub()
		ch, cancel := h.Subscribe("ev")
		defer cancel()
		done := make(chan int)
		go func() {
			n := 0
			for i := range booth.SubscriberBuffer + 10 {
				n += h.Publish("ev", booth.StatusMessage(booth.Busy, at.Add(time.Duration(i)*time.Millisecond)))
			}
			done <- n
		}()
		select {
		case n := <-done:
			if n != booth.SubscriberBuffer {
				t.Errorf("delivered %d, want the buffer's %d", n, booth.SubscriberBuffer)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("Publish blocked on a full subscriber")
		}
		if m, _ := recv(t, ch); !m.At.Equal(at) {
			t.Errorf("first kept message at %v, want the oldest %v", m.At, at)
		}
	})
	t.Run("cancel closes the channel, unsubscribes, and may be called twice", func(t *testing.T) {
		h := booth.NewHub()
		ch, cancel := h.Subscribe("ev")
		if h.Subscribers("ev") != 1 {
			t.Fatalf("Subscribers = %d, want 1", h.Subscribers("ev"))
		}
		cancel()
		cancel()
		if _, ok := recv(t, ch); ok {
			t.Error("channel still open after cancel")
		}
		if n := h.Publish("ev", booth.TriggerMessage(booth.Press{At: at})); n != 0 {
			t.Errorf("Publish after cancel delivered to %d", n)
		}
		if h.Subscribers("ev") != 0 {
			t.Errorf("Subscribers = %d after cancel, want 0", h.Subscribers("ev"))
		}
	})
	t.Run("concurrent subscribe, publish and cancel are race-free", func(t *testing.T) {
		h := booth.NewHub()
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				ev := fmt.Sprintf("ev-%d", i%2)
				for range 200 {
					ch, cancel := h.Subscribe(ev)
					h.Publish(ev, booth.TriggerMessage(booth.Press{At: at}))
					h.Broadcast(booth.StatusMessage(booth.Ready, at))
					select {
					case <-ch:
					default:
					}
					go cancel()
					cancel()
				}
			})
		}
		wg.Wait()
		if n := h.Subscribers("ev-0") + h.Subscribers("ev-1"); n != 0 {
			t.Errorf("%d subscribers left", n)
		}
	})
}

func TestHubDeliversAPressToASubscribedBoothPage(t *testing.T) {
	synctest.Test(t, testHubDeliversAPress)
}

func testHubDeliversAPress(t *testing.T) {
	r := newRig(t, true)
	hub := booth.NewHub()

	// What the daemon does: relay each press to the event's booth pages.
	go func() {
		for p := range r.dev.Presses() {
			hub.Publish("ev1", booth.TriggerMessage(p))
		}
	}()
	// A booth page's stream subscribes before anything can be pressed for
	// it; the daemon writes what arrives as Server-Sent Events.
	msgs, cancel := hub.Subscribe("ev1")
	if n := hub.Subscribers("ev1"); n != 1 {
		t.Fatalf("%d subscribers once the page subscribed, want 1", n)
	}
	synctest.Wait()
	start := time.Now()
	r.bounce(gpio.Low)

	m, ok := recv(t, msgs)
	if !ok {
		t.Fatal("the subscription closed before the press arrived")
	}
	if m.Type != booth.TypeTrigger {
		t.Errorf("Type = %q, want trigger", m.Type)
	}
	if m.At.Before(start) || m.At.After(time.Now()) {
		t.Errorf("At = %v, want a time between %v and now", m.At, start)
	}

	// The page goes away: it unsubscribes, and nothing is left.
	cancel()
	if _, ok := recv(t, msgs); ok {
		t.Error("the subscription is still open after cancel")
	}
	if n := hub.Subscribers("ev1"); n != 0 {
		t.Errorf("%d subscribers after the page left", n)
	}
}
