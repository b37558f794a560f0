package imagingtest

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"eventbox/imaging/internal/testimg"
)

// PNG writes a w×h RGB PNG of a soft gradient, 8 or 16 bits per sample,
// row by row: a 49 MP file is made without holding its pixels.
func PNG(w, h, depth int) ([]byte, error) {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&out, binary.BigEndian, uint32(len(data)))
		c := crc32.NewIEEE()
		c.Write([]byte(typ))
		c.Write(data)
		out.WriteString(typ)
		out.Write(data)
		_ = binary.Write(&out, binary.BigEndian, c.Sum32())
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, byte(depth), 2, 0, 0, 0)
	chunk("IHDR", ihdr)
	var idat bytes.Buffer
	z, _ := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	bpp := 3 * depth / 8
	row := make([]byte, 1+w*bpp)
	for y := range h {
		g := byte(y * 255 / h)
		for x := range w {
			r := byte(x * 255 / w)
			if depth == 16 {
				p := row[1+x*6 : 7+x*6]
				p[0], p[1], p[2], p[3], p[4], p[5] = r, r, g, g, 0x80, 0x80
			} else {
				p := row[1+x*3 : 4+x*3]
				p[0], p[1], p[2] = r, g, 0x80
			}
		}
		if _, err := z.Write(row); err != nil {
			return nil, err
		}
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	for b := idat.Bytes(); len(b) > 0; {
		n := min(len(b), 1<<20)
		chunk("IDAT", b[:n])
		b = b[n:]
	}
	chunk("IEND", nil)
	return out.Bytes(), nil
}

// writePPM streams a w×h gradient as a binary PPM.
func writePPM(w io.Writer, width, height int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "P6\n%d %d\n255\n", width, height)
	row := make([]byte, 3*width)
	for y := range height {
		for x := range width {
			row[3*x], row[3*x+1], row[3*x+2] = byte(x*255/width), byte(y*255/height), byte((x^y)&0x3f+0x60)
		}
		if _, err := bw.Write(row); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ProgressiveJPEG encodes a w×h gradient with `cjpeg -progressive` (Debian's
// libjpeg-turbo-progs).
func ProgressiveJPEG(w, h int) ([]byte, error) {
	bin, err := exec.LookPath("cjpeg")
	if err != nil {
		return nil, fmt.Errorf("cjpeg (Debian package libjpeg-turbo-progs): %w", err)
	}
	cmd := exec.Command(bin, "-progressive", "-quality", "80")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	werr := writePPM(in, w, h)
	in.Close()
	if err := cmd.Wait(); err != nil || werr != nil {
		return nil, fmt.Errorf("cjpeg: %v %v: %s", err, werr, stderr.Bytes())
	}
	return out.Bytes(), nil
}

// WebP encodes a w×h gradient with `cwebp -q 50 -m 0` (Debian's webp).
func WebP(dir string, w, h int) ([]byte, error) {
	bin, err := exec.LookPath("cwebp")
	if err != nil {
		return nil, fmt.Errorf("cwebp (Debian package webp): %w", err)
	}
	src := filepath.Join(dir, "webp-src.ppm")
	f, err := os.Create(src)
	if err != nil {
		return nil, err
	}
	if err := writePPM(f, w, h); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	defer os.Remove(src)
	dst := filepath.Join(dir, "out.webp")
	defer os.Remove(dst)
	if b, err := exec.Command(bin, "-quiet", "-q", "50", "-m", "0", src, "-o", dst).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("cwebp: %v: %s", err, b)
	}
	return os.ReadFile(dst)
}

// FalseSizeJPEG is a w×h baseline JPEG whose frame header claims
// claimW×claimH: its scan codes only the real picture and ends at the EOI.
func FalseSizeJPEG(w, h, claimW, claimH int) ([]byte, error) {
	b, err := testimg.JPEG(testimg.Photo(w, h, 7), 85, nil)
	if err != nil {
		return nil, err
	}
	i := bytes.Index(b, []byte{0xff, 0xc0})
	if i < 0 {
		return nil, fmt.Errorf("no SOF0 in the JPEG")
	}
	b[i+5], b[i+6], b[i+7], b[i+8] = byte(claimH>>8), byte(claimH), byte(claimW>>8), byte(claimW)
	return b, nil
}
