package probe_test

import (
	"bytes"
	"context"
	"io"
	"sync/atomic"
	"testing"

	"eventbox/probe"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n *atomic.Int64
}

func (c countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// webmMinute is a one-minute MediaRecorder-style WebM: unknown sizes, no
// Duration, 30 video blocks of 20 KB and 50 Opus blocks a second (~36 MB).
func webmMinute() []byte {
	video := bytes.Repeat([]byte{0x5A}, 20_000)
	var clusters [][]byte
	for sec := range 60 {
		var blocks [][]byte
		for ms := 0; ms < 1000; ms += 20 {
			blocks = append(blocks, simpleBlock(1, int16(ms), opus20ms, 1, 2, 3))
			if ms%100 == 0 || ms%100 == 40 || ms%100 == 60 {
				blocks = append(blocks, simpleBlock(2, int16(ms), video...))
			}
		}
		clusters = append(clusters, unknownElem(eCluster, uintElem(eTimecode, uint64(sec*1000)), cat(blocks...)))
	}
	return cat(ebmlHeader("webm"), unknownElem(eSegment,
		elem(eInfo, uintElem(eScale, 1_000_000)),
		elem(eTracks, trackEntry(1, trackAudio, "A_OPUS"), trackEntry(2, trackVideo, "V_VP8")),
		cat(clusters...)))
}

// BenchmarkVideoWebMWithoutDuration measures the cluster walk and reports
// how much of the file it reads.
func BenchmarkVideoWebMWithoutDuration(b *testing.B) {
	file := webmMinute()
	var read atomic.Int64
	r := countingReader{bytes.NewReader(file), &read}
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		res, err := probe.Video(context.Background(), r, int64(len(file)))
		if err != nil || res.Duration.Seconds() < 59.9 {
			b.Fatalf("%+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(read.Load())/float64(b.N)/float64(len(file)), "read/size")
}
