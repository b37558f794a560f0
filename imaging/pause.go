package imaging

import "context"

// pauseKey carries the function WithPause gives.
type pauseKey struct{}

// WithPause returns ctx with pause, which the image work made with it
// calls between the tiles of a HEIC grid, the longest work the package
// does (about 70 ms a tile, 48 tiles for a 12 MP photo): work that must
// give way to other work waits in pause, holding its memory. pause gets
// the work's context and should return when it ends.
func WithPause(ctx context.Context, pause func(context.Context)) context.Context {
	return context.WithValue(ctx, pauseKey{}, pause)
}

// pauseFor returns ctx's pause function, nil when none.
func pauseFor(ctx context.Context) func(context.Context) {
	p, _ := ctx.Value(pauseKey{}).(func(context.Context))
	return p
}
