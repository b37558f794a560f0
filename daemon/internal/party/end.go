package party

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// endPhoto is what the end reads of a photo in the hosts' list.
type endPhoto struct {
	ID         string
	ThumbReady bool
	Video      *struct{ DurationMs int64 }
}

// listPhotos reads the event's whole list, as the hosts' console does.
func (p *party) listPhotos(ctx context.Context) (map[string]endPhoto, error) {
	all := map[string]endPhoto{}
	before := ""
	for {
		var page struct {
			Photos     []endPhoto
			NextCursor *int64
		}
		if err := callJSON(ctx, p.home, p.box.HomeURL(), "GET", "/api/admin/events/"+p.eventID+"/photos"+before, nil, &page); err != nil {
			return nil, err
		}
		for _, ph := range page.Photos {
			all[ph.ID] = ph
		}
		if page.NextCursor == nil {
			return all, nil
		}
		before = "?before=" + strconv.FormatInt(*page.NextCursor, 10)
	}
}

// catchUp follows the box catching up, from the moment the last upload
// was acknowledged: it notes when every photo has its thumb, then when
// every HEIC is sharp. It runs beside the evening's own end (walls,
// consoles and samplers leaving), so the figures are the box's, not the
// tool's: the first version looked only once those had left, minutes
// later on a long party, and took that wait for the box's.
func (p *party) catchUp(ctx context.Context) error {
	p.mu.Lock()
	last := p.lastAck
	p.mu.Unlock()
	for look := 0; ; look++ {
		photos, err := p.listPhotos(ctx)
		if err != nil {
			return err
		}
		missing := 0
		var which []string
		for _, ph := range photos {
			if !ph.ThumbReady {
				missing++
				if len(which) < 5 {
					kind := "photo"
					if ph.Video != nil {
						kind = "video"
					}
					which = append(which, kind+" "+ph.ID)
				}
			}
		}
		if missing == 0 {
			p.res.ThumbsAfter = max(0, time.Since(last))
			break
		}
		if look%15 == 14 {
			// Every 30 s: which ones, for the daemon's log.
			p.logf("%d without their thumb %v after the last upload, among them %s", missing, time.Since(last).Round(time.Second), strings.Join(which, ", "))
		}
		if time.Since(last) > 30*time.Minute {
			p.res.ThumbsAfter = time.Since(last)
			p.fail("thumbs", fmt.Errorf("%d photos still without their thumb 30 minutes after the last upload", missing))
			break
		}
		time.Sleep(2 * time.Second)
	}
	p.logf("every thumb made %v after the last upload", p.res.ThumbsAfter.Round(time.Second))
	// The HEICs' sharp variants, which come after every other photo's.
	c := client(nil, 5*time.Second, Shape{})
	for {
		v, err := p.box.Vitals(ctx, c)
		if err == nil && v.Sharpen == 0 {
			p.res.SharpAfter = max(0, time.Since(last))
			break
		}
		if time.Since(last) > 30*time.Minute {
			p.res.SharpAfter = time.Since(last)
			p.fail("sharp", fmt.Errorf("%d HEICs still rough 30 minutes after the last upload", v.Sharpen))
			break
		}
		time.Sleep(2 * time.Second)
	}
	p.logf("every HEIC sharp %v after the last upload", p.res.SharpAfter.Round(time.Second))
	return nil
}

// check waits for catchUp, then counts the acknowledged uploads that are
// not on the box whole (their record or their file), the bytes it stores
// and its database's size.
func (p *party) check(ctx context.Context, dir string) error {
	if err := <-p.caughtUp; err != nil {
		return err
	}
	photos, err := p.listPhotos(ctx)
	if err != nil {
		return err
	}
	p.res.Photos = len(photos)
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, a := range p.acks {
		fi, err := os.Stat(filepath.Join(dir, "media", p.eventID, id+a.file))
		if _, listed := photos[id]; !listed || err != nil || fi.Size() != a.size {
			p.res.Lost++
			if len(p.res.Errors) < 50 {
				p.res.Errors = append(p.res.Errors, fmt.Sprintf("lost: %s (listed %v, file %v)", id, listed, err))
			}
		}
	}
	filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			p.res.Stored += fi.Size()
		}
		return nil
	})
	if fi, err := os.Stat(filepath.Join(dir, "eventbox.db")); err == nil {
		p.res.DBBytes = fi.Size()
	}
	return nil
}

// end ends the event (the guests' gallery mails go out), then downloads
// the ZIP of everything, makes the album and exports the event to the
// WebDAV server, each beside its reference.
func (p *party) end(ctx context.Context, dir string) error {
	home, h := p.box.HomeURL(), p.home
	p.res.Prints = p.env.Prints()
	ended := time.Now()
	if err := callJSON(ctx, h, home, "POST", "/api/admin/events/"+p.eventID+"/end", nil, nil); err != nil {
		return err
	}
	want := 0
	for _, c := range NewPlan(p.env.Scale).Contact {
		if c {
			want++
		}
	}
	for p.env.Mails() < want && time.Since(ended) < 15*time.Minute {
		time.Sleep(time.Second)
	}
	p.res.Mails, p.res.MailsAfter = p.env.Mails(), time.Since(ended)
	p.logf("%d mails arrived %v after the end", p.res.Mails, p.res.MailsAfter.Round(time.Second))

	// The ZIP of everything, and zip -0 of the same files.
	start := time.Now()
	n, err := download(ctx, h, home+"/api/admin/events/"+p.eventID+"/archive?all=1")
	if err != nil {
		return fmt.Errorf("the ZIP: %w", err)
	}
	p.res.ZIP, p.res.ZIPBytes = time.Since(start), n
	media := filepath.Join(dir, "media", p.eventID)
	if p.res.ZIPRef, err = p.refCommand(ctx, "sh", "-c", `cd "$1" && zip -0 -q -r - . > /dev/null`, "sh", media); err != nil {
		return err
	}
	p.logf("ZIP %v (%.1f GB), zip -0 %v", p.res.ZIP.Round(time.Second), float64(n)/1e9, p.res.ZIPRef.Round(time.Second))

	start = time.Now()
	if p.res.AlbumBytes, err = download(ctx, h, home+"/api/admin/events/"+p.eventID+"/album?layout=4&scope=visible"); err != nil {
		return fmt.Errorf("the album: %w", err)
	}
	p.res.Album = time.Since(start)
	p.logf("album %v (%.1f MB)", p.res.Album.Round(time.Second), float64(p.res.AlbumBytes)/1e6)

	// The export, then rclone copy of what it sent to another folder of
	// the same server.
	start = time.Now()
	var sent string
	var ex struct{ Export struct{ ID string } }
	if err := callJSON(ctx, h, home, "POST", "/api/admin/events/"+p.eventID+"/cloud", map[string]any{"scope": "visible"}, &ex); err != nil {
		return err
	}
	for {
		var st struct {
			Exports []struct {
				ID, Status, Folder string
				Bytes              int64
				Error              *string
			}
		}
		if err := callJSON(ctx, h, home, "GET", "/api/admin/events/"+p.eventID+"/cloud", nil, &st); err != nil {
			return err
		}
		var done bool
		var folder string
		for _, e := range st.Exports {
			if e.ID != ex.Export.ID {
				continue
			}
			if e.Status == "failed" {
				return fmt.Errorf("the export failed: %v", e.Error)
			}
			if e.Status == "done" {
				done, p.res.ExportBytes, folder = true, e.Bytes, e.Folder
			}
		}
		if done {
			sent = filepath.Join(p.env.DAVDir, filepath.FromSlash(strings.Trim(folder, "/")))
			break
		}
		time.Sleep(time.Second)
	}
	p.res.Export = time.Since(start)
	obscured, err := obscure(p.env.Rclone, p.env.DAVPass)
	if err != nil {
		return err
	}
	if p.res.Rclone, err = p.refCommand(ctx, p.env.Rclone, "copy", sent, ":webdav:reference", "--config", os.DevNull,
		"--webdav-url", p.env.DAVURL, "--webdav-user", p.env.DAVUser, "--webdav-pass", obscured); err != nil {
		return err
	}
	p.logf("export %v (%.1f GB), rclone copy %v", p.res.Export.Round(time.Second), float64(p.res.ExportBytes)/1e9, p.res.Rclone.Round(time.Second))
	os.RemoveAll(filepath.Join(p.env.DAVDir, "reference"))
	return nil
}

// download reads url to its end and answers its length.
func download(ctx context.Context, c *http.Client, url string) (int64, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	res, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return 0, fmt.Errorf("%s answered %d", url, res.StatusCode)
	}
	return io.Copy(io.Discard, res.Body)
}

// obscure is the password as rclone's command line takes it.
func obscure(rclone, pass string) (string, error) {
	out, err := execOutput(rclone, "obscure", pass)
	if err != nil {
		return "", fmt.Errorf("rclone obscure: %w", err)
	}
	return out, nil
}
