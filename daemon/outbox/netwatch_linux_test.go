package outbox_test

import (
	"context"
	"testing"
	"time"

	"eventbox/daemon/outbox"
)

func TestRouteChangesOpensAndStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := outbox.RouteChanges(ctx)
	if err != nil {
		t.Fatalf("watching routes: %v", err)
	}
	cancel()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the watch did not end within 10 s of its context")
		}
	}
}
