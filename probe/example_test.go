package probe_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"eventbox/probe"
)

// The daemon probes an upload once it is on disk, before accepting it.
func ExampleVideo() {
	f, err := os.Open("testdata/quicktime.mov")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := probe.Video(context.Background(), f, st.Size())
	switch {
	case errors.Is(err, probe.ErrInvalid):
		fmt.Println("invalid_video") // 415
	case err != nil:
		fmt.Println("internal") // 500: the disk failed
	default:
		fmt.Println(res.MIME, res.Codec, res.Duration)
	}
	// Output: video/quicktime h264 1s
}

func ExampleAudio() {
	f, err := os.Open("testdata/voice.ogg")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := probe.Audio(context.Background(), f, st.Size())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Container, res.MIME, res.Codec, res.Duration)
	// Output: ogg audio/ogg opus 800ms
}
