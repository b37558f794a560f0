package party

import (
	"bytes"
	"context"
	"testing"
	"time"

	"eventbox/imaging"
)

func TestSizes(t *testing.T) {
	m, err := NewMedia(t.TempDir(), 1, 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := imaging.NewPool(imaging.PoolConfig{Workers: 1})
	for k := range kinds {
		parts, size, name := m.Photo(Kind(k), 0)
		data := bytes.Join(parts, nil)
		p.Make(context.Background(), bytes.NewReader(data), size)
		start := time.Now()
		const n = 3
		for range n {
			if _, err := p.Make(context.Background(), bytes.NewReader(data), size); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s: %s %.2f MB, %v per Make", Kind(k), name, float64(size)/1e6, time.Since(start)/n)
	}
}
