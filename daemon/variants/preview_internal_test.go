package variants

import (
	"fmt"
	"testing"
)

// The previews kept are the previewCache most recently asked for; a
// photo with none is remembered as such, and a dropped one is gone.
func TestPreviewsKeepTheMostRecentlyAskedFor(t *testing.T) {
	c := newPreviews()
	for i := range previewCache {
		c.put(fmt.Sprint(i), []byte{byte(i)})
	}
	c.put("none", nil) // the oldest, "0", goes
	if _, ok := c.get("0"); ok {
		t.Fatal("the oldest preview was kept past the bound")
	}
	if b, ok := c.get("1"); !ok || b[0] != 1 {
		t.Fatalf("preview 1 = %v, %v", b, ok)
	}
	c.put("more", []byte{9}) // "1" was just asked for: "2" goes
	if _, ok := c.get("2"); ok {
		t.Fatal("preview 2 was kept while 1, asked for since, was not the newest")
	}
	if _, ok := c.get("1"); !ok {
		t.Fatal("preview 1, asked for since, was dropped")
	}
	if b, ok := c.get("none"); !ok || b != nil {
		t.Fatalf("a photo without a preview = %v, %v; want nil, true", b, ok)
	}
	c.drop("more")
	if _, ok := c.get("more"); ok || c.order.Len() != len(c.byID) || len(c.byID) != previewCache-1 {
		t.Fatalf("after a drop: found %v, %d in order, %d by id", ok, c.order.Len(), len(c.byID))
	}
}
