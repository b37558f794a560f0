package scenarios_test

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestBoothLinkQRCode(t *testing.T) {
	t.Parallel()
	needTool(t, "zbarimg", "zbar-tools")
	needTool(t, "rsvg-convert", "librsvg2-bin")
	h := newHarness(t)
	owner := h.owner()
	id := h.createEvent(owner, map[string]any{"name": "Booth"})["id"].(string)
	on := owner.do("POST", "/api/admin/events/"+id+"/booth", map[string]any{}).expect(t, 200, "")
	qr, _ := on.JSON["qr"].(string)
	b64, ok := strings.CutPrefix(qr, "data:image/svg+xml;base64,")
	if !ok {
		t.Fatalf("qr = %.60q, want an SVG data URL", qr)
	}
	svg, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := zbarDecode(t, rasterise(t, svg)), on.JSON["url"].(string); got != want {
		t.Fatalf("the booth QR code holds %q, want the booth link %q", got, want)
	}
}
