package packaging_test

import (
	"os"
	"os/exec"
	"testing"
)

// TestCardImage checks a card image made by `make image`
// (packaging/image/check.sh: its partitions, the boot partition's files, the
// read-only root's fstab and units, DATA_DIR, and the arm64 binary run in
// the root through qemu-user). It needs root and a built image, so it runs
// only when EVENTBOX_IMAGE names one.
func TestCardImage(t *testing.T) {
	image := os.Getenv("EVENTBOX_IMAGE")
	if image == "" {
		t.Skip("EVENTBOX_IMAGE is not set: no card image to check (make image, then EVENTBOX_IMAGE=dist/eventbox-…-arm64.img)")
	}
	if os.Geteuid() != 0 {
		t.Fatal("EVENTBOX_IMAGE is set but the check needs root (loop devices and mounts)")
	}
	out, err := exec.CommandContext(t.Context(), "bash", "image/check.sh", image).CombinedOutput()
	t.Logf("image/check.sh %s:\n%s", image, out)
	if err != nil {
		t.Fatalf("image/check.sh %s: %v", image, err)
	}
}
