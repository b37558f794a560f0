//go:build !linux

package outbox

import (
	"context"
	"time"
)

// RouteChanges polls /proc/net/route every 30 s; where there is none (off
// Linux) it answers an error and the network is not watched.
func RouteChanges(ctx context.Context) (<-chan struct{}, error) {
	return PollRoutes("/proc/net/route", 30*time.Second)(ctx)
}
