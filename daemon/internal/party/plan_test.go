package party

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// TestWeddingPlanHoldsTheMixAndTheEvening checks the plan against the
// issue's wedding: the counts, the photo mix, every action after its
// guest's arrival and inside the evening, a video in four cut, the
// kills evenly spaced.
func TestWeddingPlanHoldsTheMixAndTheEvening(t *testing.T) {
	p := NewPlan(Wedding)
	kinds := map[Kind]int{}
	cut, videos := 0, 0
	for g, as := range p.Actions {
		var last time.Duration
		for _, a := range as {
			if a.At < p.Arrive[g] || a.At > Wedding.Evening || a.At < last {
				t.Fatalf("guest %d: an action at %v (arrived %v, the one before at %v)", g, a.At, p.Arrive[g], last)
			}
			last = a.At
			switch a.What {
			case DoPhoto:
				kinds[a.Kind]++
			case DoVideo:
				videos++
				if a.Cut {
					cut++
				}
				if a.Size < Wedding.VideoMin || a.Size > Wedding.VideoMax {
					t.Errorf("a video of %d bytes", a.Size)
				}
			}
		}
	}
	for k, share := range Mix {
		if got, want := kinds[Kind(k)], Wedding.Photos*share/100; got != want {
			t.Errorf("%v: %d photos, want %d", Kind(k), got, want)
		}
	}
	for w, want := range map[What]int{DoVideo: 150, DoVoice: 100, DoText: 200, DoHeart: 3000, DoPage: 900} {
		if got := p.Count(w); got != want {
			t.Errorf("action %d: %d, want %d", w, got, want)
		}
	}
	if videos != 150 || cut < 30 || cut > 45 {
		t.Errorf("%d videos, %d cut", videos, cut)
	}
	contacts := 0
	for _, c := range p.Contact {
		if c {
			contacts++
		}
	}
	// No moment of the evening holds a pile of photos (a clamp would
	// put every late one on the last).
	at := map[time.Duration]int{}
	for _, as := range p.Actions {
		for _, a := range as {
			if a.What == DoPhoto {
				at[a.At]++
			}
		}
	}
	for when, n := range at {
		if n > 3 {
			t.Errorf("%d photos at %v", n, when)
		}
	}
	if contacts != 250 || len(p.Booth) != 200 || len(p.Kills) != 3 || p.Kills[1] != Wedding.Evening/2 {
		t.Errorf("contacts %d, booth %d, kills %v", contacts, len(p.Booth), p.Kills)
	}
}

// TestDelayConnDelaysEachWayAndKeepsTheBytes sends through a delayed
// connection both ways: every byte arrives, in order, and not before the
// radio's delay.
func TestDelayConnDelaysEachWayAndKeepsTheBytes(t *testing.T) {
	a, b := net.Pipe()
	s := Shape{DelayMs: 30, JitterMs: 5}
	d := newDelayConn(a, s)
	defer d.Close()
	want := bytes.Repeat([]byte("0123456789"), 10000)
	go func() {
		buf := make([]byte, len(want))
		if _, err := io.ReadFull(b, buf); err == nil {
			b.Write(buf) // echo
		}
	}()
	start := time.Now()
	if _, err := d.Write(want); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(want))
	if _, err := io.ReadFull(d, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the bytes changed on the way")
	}
	// Out and back: at least twice the delay less its jitter.
	if took := time.Since(start); took < 50*time.Millisecond {
		t.Errorf("a round trip took %v, want at least 50 ms", took)
	}
}

// TestPhotosAreEachTheirOwn checks that two photos of one base differ
// (the daemon would take a copy for the same upload) and keep their
// format's signature.
func TestPhotosAreEachTheirOwn(t *testing.T) {
	png := pngChunk("tEXt", []byte("x"))
	if len(png) != 13 {
		t.Fatalf("a chunk of one byte is %d bytes", len(png))
	}
	m := &Media{}
	m.bases[Screenshot] = [][]byte{append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 40)...)}
	m.bases[PhoneJPEG] = [][]byte{{0xff, 0xd8, 0xff, 0xe1, 0, 2}}
	m.bases[HEIC] = [][]byte{[]byte("\x00\x00\x00\x10ftypheic....")}
	for _, k := range []Kind{Screenshot, PhoneJPEG, HEIC} {
		a, _, _ := m.Photo(k, 1)
		b, _, _ := m.Photo(k, 2)
		if bytes.Equal(bytes.Join(a, nil), bytes.Join(b, nil)) {
			t.Errorf("%v: two photos of one base are the same bytes", k)
		}
		if !bytes.HasPrefix(bytes.Join(a, nil), m.bases[k][0][:2]) { // SOI, the PNG signature, the ftyp box
			t.Errorf("%v: the photo lost its signature", k)
		}
	}
	v := (&Media{payload: make([]byte, 1<<20)}).Video(1, 1<<20)
	all, _ := io.ReadAll(v.Section(0, v.Size()))
	part, _ := io.ReadAll(v.Section(100, 200000))
	if int64(len(all)) != v.Size() || v.Size() != 1<<20 || !bytes.Equal(part, all[100:200000]) {
		t.Errorf("a video of %d bytes reads %d; a section differs: %v", v.Size(), len(all), !bytes.Equal(part, all[100:200000]))
	}
}
