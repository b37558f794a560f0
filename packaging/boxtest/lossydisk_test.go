package boxtest

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eventbox/internal/testtool"
)

// TestLossyDiskLosesWhatWasNotFlushed drives the disk with qemu's own NBD
// client (qemu-io, the block layer qemu-system uses): what was flushed
// survives a cut, what was not is lost (LoseAll) or written in part
// (KeepSome), and reads before the cut see every write.
func TestLossyDiskLosesWhatWasNotFlushed(t *testing.T) {
	testtool.Need(t, "qemu-utils", "qemu-io")
	cases := []struct {
		name string
		mode CutMode
		// want says what the disk holds at 64 KiB after the cut: the
		// flushed 0xaa, or 0xbb written after the flush.
		want []byte
	}{
		{"lose all", LoseAll, []byte{0xaa}},
		{"keep some", KeepSome, []byte{0xaa, 0xbb}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "disk.img")
			if err := os.WriteFile(img, make([]byte, 1<<20), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := OpenLossyDisk(img)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			sock := filepath.Join(dir, "nbd.sock")
			l, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			go func() { _ = d.Serve(l) }()
			// One qemu-io session, as one boot of the machine: it is killed
			// after the cut, so it sends no flush of its own at the end.
			qio := exec.Command("qemu-io", "-t", "writeback", "-f", "raw", "nbd+unix:///?socket="+sock)
			stdin, err := qio.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var out testtool.SyncBuffer
			qio.Stdout, qio.Stderr = &out, &out
			if err := qio.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = qio.Process.Kill() }()
			// qemu-io reads its next command once the last one is done: one
			// line at a time, each after the answer to the one before.
			deadline := time.Now().Add(30 * time.Second)
			for i, cmd := range []string{"write -P 0xaa 65536 4096", "flush", "write -P 0xbb 65536 4096",
				"write -P 0xcc 131072 4096", "read -P 0xbb 65536 4096", "read -P 0xcc 131072 4096"} {
				for strings.Count(out.String(), "qemu-io>") < i+1 {
					if time.Now().After(deadline) {
						t.Fatalf("qemu-io:\n%s", out.String())
					}
					time.Sleep(10 * time.Millisecond)
				}
				_, _ = io.WriteString(stdin, cmd+"\n")
			}
			// Before the cut the machine reads its own writes.
			for strings.Count(out.String(), "read 4096/4096") < 2 {
				if time.Now().After(deadline) || strings.Contains(out.String(), "fail") {
					t.Fatalf("qemu-io:\n%s", out.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if s := d.Stats(); s.Writes != 3 || s.Flushes != 1 {
				t.Fatalf("the disk saw %+v, want 3 writes and a flush", s)
			}
			// The power cut: the machine is gone, then the disk decides.
			_ = qio.Process.Kill()
			_ = qio.Wait()
			pending, err := d.Cut(tc.mode, rand.New(rand.NewPCG(1, 2)))
			if err != nil || pending != 2 {
				t.Fatalf("cut: %d pending, %v; want the 2 writes after the flush", pending, err)
			}
			b, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			got := b[65536]
			if !bytes.Contains(tc.want, []byte{got}) || !bytes.Equal(b[65536:65536+4096], bytes.Repeat([]byte{got}, 4096)) {
				t.Fatalf("after the cut the disk holds %#x at 64 KiB, want one of %#x, whole", got, tc.want)
			}
			if tc.mode == LoseAll && b[131072] != 0 {
				t.Fatalf("an unflushed write survived the cut: %#x at 128 KiB", b[131072])
			}
			s := d.Stats()
			if s.Lost+s.Kept != 2 {
				t.Fatalf("stats after the cut %+v: want 2 writes lost or kept", s)
			}
			t.Logf("%s: %+v; the disk holds %#x at 64 KiB", tc.name, s, got)
		})
	}
}
