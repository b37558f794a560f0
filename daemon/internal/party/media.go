package party

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"sync"

	"eventbox/imaging/imagingtest"
	"eventbox/internal/fakemp4"
)

// Kind is one kind of file in the party's mix.
type Kind int

// The photos' kinds (the mix's shares are in Mix) and the other files.
const (
	// PhoneJPEG is a 12 MP camera JPEG with the camera's preview in its
	// EXIF block.
	PhoneJPEG Kind = iota
	// BareJPEG is the same without the preview, as some browsers send
	// photos (they strip the EXIF block).
	BareJPEG
	// HEIC is a 12 MP grid HEIC as iPhones write it (512×512 tiles) with
	// its 320×240 thumbnail item.
	HEIC
	// Large is a 50 MP camera JPEG (a phone's full-resolution mode) with
	// its preview.
	Large
	// Screenshot is a phone's screenshot, PNG or JPEG.
	Screenshot
	kinds
)

// String names the kind in the report.
func (k Kind) String() string {
	return [...]string{"12 MP JPEG with preview", "12 MP JPEG without preview", "12 MP HEIC", "50 MP JPEG", "screenshot"}[k]
}

// Mix is each photo kind's share of the photos, in percent: the issue's
// realistic mix.
var Mix = [kinds]int{PhoneJPEG: 60, BareJPEG: 20, HEIC: 10, Large: 5, Screenshot: 5}

// Media holds the party's files: a few generated bases of each kind,
// which every photo copies with bytes of its own, and one payload the
// videos share.
type Media struct {
	bases   [kinds][][]byte
	payload []byte
	voice   []byte
}

// NewMedia makes the bases (perKind of each photo kind; the 50 MP ones
// take seconds each) and the videos' payload of maxVideo bytes. voice is
// a real voice note (an m4a a phone recorded). dir is for the HEIC
// encoder's files.
func NewMedia(dir string, perKind int, maxVideo int64, voice []byte) (*Media, error) {
	m := &Media{voice: voice}
	var wg sync.WaitGroup
	var mu sync.Mutex
	errs := make(chan error, 4*perKind+4)
	sem := make(chan struct{}, 2)
	for i := range perKind {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			with, without := cameraJPEG(uint64(i), 4032, 3024)
			large, _ := cameraJPEG(uint64(100+i), 8160, 6120)
			shot, err := screenshot(uint64(i), i%2 == 0)
			if err != nil {
				errs <- err
				return
			}
			heic, _, err := imagingtest.GridPictureThumbWith(imagingtest.Medium, dir, 4032, 3024, 4, 0, 320, 240)
			if err != nil {
				errs <- fmt.Errorf("making a HEIC: %w", err)
				return
			}
			mu.Lock()
			m.bases[PhoneJPEG] = append(m.bases[PhoneJPEG], with)
			m.bases[BareJPEG] = append(m.bases[BareJPEG], without)
			m.bases[Large] = append(m.bases[Large], large)
			m.bases[Screenshot] = append(m.bases[Screenshot], shot)
			m.bases[HEIC] = append(m.bases[HEIC], heic)
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	m.payload = make([]byte, maxVideo)
	rng := rand.NewChaCha8([32]byte{7})
	rng.Read(m.payload)
	return m, nil
}

// Photo is photo n of kind k: a base with bytes of its own (a JPEG
// comment, a PNG text chunk or a HEIF free box), as parts to send one
// after another, its size, and its file name.
func (m *Media) Photo(k Kind, n int) (parts [][]byte, size int64, name string) {
	b := m.bases[k][n%len(m.bases[k])]
	tag := fmt.Sprintf("party-photo-%08d", n)
	switch {
	case k == HEIC:
		free := make([]byte, 8, 8+len(tag))
		binary.BigEndian.PutUint32(free, uint32(8+len(tag)))
		copy(free[4:], "free")
		parts, name = [][]byte{b, append(free, tag...)}, fmt.Sprintf("IMG_%04d.HEIC", n%10000)
	case bytes.HasPrefix(b, []byte("\x89PNG")):
		chunk := pngChunk("tEXt", []byte("Comment\x00"+tag))
		parts, name = [][]byte{b[:33], chunk, b[33:]}, fmt.Sprintf("Screenshot_%04d.png", n%10000)
	default:
		com := []byte{0xff, 0xfe, 0, byte(2 + len(tag))}
		parts, name = [][]byte{b[:2], append(com, tag...), b[2:]}, fmt.Sprintf("PXL_%04d.jpg", n%10000)
		if k == Screenshot {
			name = fmt.Sprintf("Screenshot_%04d.jpg", n%10000)
		}
	}
	for _, p := range parts {
		size += int64(len(p))
	}
	return parts, size, name
}

// Video is a video of size bytes (an MP4 the box's check accepts, a
// phone's layout) with bytes of its own; read it with Section.
type Video struct {
	head, tail []byte
	body       []byte
	// Seconds is how long it says it lasts.
	Seconds int
}

// Video is video n, of size bytes (at most the payload's size).
func (m *Media) Video(n int, size int64) Video {
	// A phone films 4K at about 40 Mbit/s: 300 MB is a minute, the box's
	// longest video (MAX_VIDEO_SECONDS).
	seconds := int(min(60, max(3, size/(5<<20))))
	shell := fakemp4.Make(seconds, nil)
	ftyp, moov := shell[:32], shell[40:]
	dataLen := size - int64(len(ftyp)) - 8 - int64(len(moov))
	hdr := make([]byte, 8)
	binary.BigEndian.PutUint32(hdr, uint32(8+dataLen))
	copy(hdr[4:], "mdat")
	own := fmt.Sprintf("party-video-%08d", n)
	head := append(append(append([]byte{}, ftyp...), hdr...), own...)
	return Video{head: head, body: m.payload[:dataLen-int64(len(own))], tail: moov, Seconds: seconds}
}

// Size is the video's length in bytes.
func (v Video) Size() int64 { return int64(len(v.head) + len(v.body) + len(v.tail)) }

// Section reads bytes [off, end) of the video.
func (v Video) Section(off, end int64) io.Reader {
	var rs []io.Reader
	for _, p := range [][]byte{v.head, v.body, v.tail} {
		n := int64(len(p))
		if off < n && end > 0 {
			rs = append(rs, bytes.NewReader(p[max(off, 0):min(end, n)]))
		}
		off, end = off-n, end-n
	}
	return io.MultiReader(rs...)
}

// Voice is the voice note every guest who leaves one sends.
func (m *Media) Voice() []byte { return m.voice }

// Poster is a small JPEG of its own for video n, its poster frame.
func Poster(n int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 160, 90))
	for p := 0; p < len(img.Pix); p += 4 {
		img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = byte(n*37), byte(p), byte(n*11+p/7), 255
	}
	img.Set(n%160, n/160%90, color.RGBA{255, 255, 255, 255})
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// cameraJPEG is a w×h photo as a phone's camera encodes it (quality 92,
// about 3 bits a pixel of mild sensor noise over smooth shapes), with
// the camera's 160×120 EXIF preview and without it.
func cameraJPEG(seed uint64, w, h int) (with, without []byte) {
	rng := rand.New(rand.NewPCG(seed, 11))
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	cx, cy := float64(w)*(0.3+0.4*rng.Float64()), float64(h)*(0.3+0.4*rng.Float64())
	for y := 0; y < h; y++ {
		row := img.Y[y*img.YStride:]
		for x := 0; x < w; x++ {
			dx, dy := (float64(x)-cx)/float64(w), (float64(y)-cy)/float64(h)
			v := 200 - int(400*(dx*dx+dy*dy)) + (x/97+y/89)%3*9 + int(rng.NormFloat64()*6)
			row[x] = uint8(max(0, min(255, v)))
		}
	}
	for i := range img.Cb {
		img.Cb[i] = uint8(118 + i%7 + rng.IntN(5))
		img.Cr[i] = uint8(128 + (i/3)%9 + rng.IntN(5))
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92}); err != nil {
		panic(err)
	}
	without = buf.Bytes()
	with = imagingtest.WithAPP1(without, imagingtest.EXIFWithPreview(1, imagingtest.PreviewOf(img, 160, 120)))
	return with, without
}

// screenshot is a 1170×2532 phone screenshot: flat bands of colour and
// text-like marks, as a PNG or (some apps) a JPEG.
func screenshot(seed uint64, asPNG bool) ([]byte, error) {
	const w, h = 1170, 2532
	rng := rand.New(rand.NewPCG(seed, 13))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		band := color.NRGBA{uint8(230 - y/120*9), uint8(235 - y/200*5), 245, 255}
		for x := 0; x < w; x++ {
			c := band
			if y%48 > 30 && x%23 < 14 && (x/23+y/48)%5 != 0 && rng.IntN(9) > 0 {
				c = color.NRGBA{30, 30, 40, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	var err error
	if asPNG {
		err = png.Encode(&buf, img)
	} else {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
	}
	if err != nil {
		return nil, fmt.Errorf("making a screenshot: %w", err)
	}
	return buf.Bytes(), nil
}

// pngChunk is a PNG chunk of type typ holding data, with its CRC.
func pngChunk(typ string, data []byte) []byte {
	b := make([]byte, 8, 12+len(data))
	binary.BigEndian.PutUint32(b, uint32(len(data)))
	copy(b[4:], typ)
	b = append(b, data...)
	c := crc32.ChecksumIEEE(b[4:])
	return binary.BigEndian.AppendUint32(b, c)
}

// readVoice reads the voice note at path.
func readVoice(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the voice note: %w", err)
	}
	return b, nil
}
