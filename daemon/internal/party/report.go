package party

import (
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"
)

// Figure is one measured figure beside its bound.
type Figure struct {
	What, Bound, Got string
	OK               bool
	// Stated figures have no bound.
	Stated bool
}

// pct is the p-th percentile (nearest rank) of ds; 0 for none.
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return s[max(0, min(i, len(s)-1))]
}

// since answers, for each acknowledged upload, how long after its
// acknowledgement a stream first showed it (10 minutes when never).
func (p *party) since(seen map[string]time.Time) []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []time.Duration
	for _, w := range p.waits(seen) {
		out = append(out, w.d)
	}
	return out
}

// wait is how long after its acknowledgement a photo was seen.
type wait struct {
	id string
	a  ack
	d  time.Duration
}

// waits answers each acknowledged upload's wait until it was first seen
// in seen: 0 when it was seen before the phone had its answer, 10
// minutes when never. p.mu is held.
func (p *party) waits(seen map[string]time.Time) []wait {
	out := make([]wait, 0, len(p.acks))
	for id, a := range p.acks {
		d := 10 * time.Minute
		if t, ok := seen[id]; ok {
			d = max(0, t.Sub(a.at))
		}
		out = append(out, wait{id, a, d})
	}
	return out
}

// Tail is what a figure's slowest twentieth of photos were: how many
// were acknowledged in the 20 s before a kill -9 ended (their work lost
// with the process, or the box down), and how many were HEICs.
type Tail struct {
	Photos, NearKill, HEIC int
}

// tail sorts the photos seen in seen by their wait after the
// acknowledgement and describes the slowest twentieth; only, when not
// nil, says which uploads count. The slowest five are logged, with when
// they were acknowledged.
func (p *party) tail(what string, seen map[string]time.Time, only func(ack) bool) Tail {
	p.mu.Lock()
	defer p.mu.Unlock()
	ws := p.waits(seen)
	if only != nil {
		ws = slices.DeleteFunc(ws, func(w wait) bool { return !only(w.a) })
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].d > ws[j].d })
	for _, w := range ws[:min(5, len(ws))] {
		p.logf("%s: %s acknowledged at %s, after %s", what, w.id, w.a.at.Sub(p.start).Round(100*time.Millisecond), w.d.Round(100*time.Millisecond))
	}
	var t Tail
	for _, w := range ws[:len(ws)/20] {
		t.Photos++
		if w.a.heic {
			t.HEIC++
		}
		at := w.a.at.Sub(p.start)
		for _, d := range p.downs {
			if at <= d[1] && at >= d[1]-20*time.Second {
				t.NearKill++
				break
			}
		}
	}
	return t
}

// growth compares the median of a figure over the last sixth of the
// evening with its median over the sixth after warm-up (the first
// third): the share it grew by.
func growth(samples []Sample, evening time.Duration, f func(Sample) float64) (from, to, share float64) {
	median := func(lo, hi time.Duration) float64 {
		var v []float64
		for _, s := range samples {
			if s.Up && s.At >= lo && s.At < hi {
				v = append(v, f(s))
			}
		}
		if len(v) == 0 {
			return 0
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	from = median(evening/3, evening/2)
	to = median(evening*5/6, evening+time.Minute)
	if from == 0 {
		return from, to, 0
	}
	return from, to, to/from - 1
}

// Figures are the run's figures beside the bounds.
func (r *Result) Figures() []Figure {
	var out []Figure
	add := func(what, bound, got string, ok bool) {
		out = append(out, Figure{What: what, Bound: bound, Got: got, OK: ok})
	}
	state := func(what, got string) { out = append(out, Figure{What: what, Got: got, OK: true, Stated: true}) }
	ms := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	add("uploads acknowledged", "all", fmt.Sprintf("%d of %d (%d videos, %d of them cut and resumed; %d retries)", r.Acked, r.Sent, r.Videos, r.Cut, r.Retries), r.Acked == r.Sent)
	add("acknowledged uploads lost", "0", fmt.Sprint(r.Lost), r.Lost == 0)
	var health []time.Duration
	for _, h := range r.Health {
		health = append(health, h.D)
	}
	add("GET /api/health through the radio, p99", "≤ 250 ms", fmt.Sprintf("%s (p50 %s, max %s, %d samples)", ms(pct(health, 99)), ms(pct(health, 50)), ms(pct(health, 100)), len(health)),
		len(health) > 0 && pct(health, 99) <= 250*time.Millisecond)
	if len(r.BareHealth) > 0 {
		state("… a bare HTTP server beside the daemon on the same link, asked alike, p99", fmt.Sprintf("%s (p50 %s, max %s, %d samples; %.1f %% over 200 ms, against %.1f %% of the daemon's)",
			ms(pct(r.BareHealth, 99)), ms(pct(r.BareHealth, 50)), ms(pct(r.BareHealth, 100)), len(r.BareHealth), over(r.BareHealth, 200*time.Millisecond), over(health, 200*time.Millisecond)))
	}
	if q := r.Quota; q != nil && q.Periods > 0 {
		state("… the stand-in's CPU quota over the evening", fmt.Sprintf("the daemon used it up in %d of %d periods (%.1f %%), standing still %s in all",
			q.Throttled, q.Periods, 100*float64(q.Throttled)/float64(q.Periods), q.Held.Round(100*time.Millisecond)))
	}
	add("guest page ready, p95", "≤ 1 s", fmt.Sprintf("%s (p50 %s, %d loads)", ms(pct(r.Pages, 95)), ms(pct(r.Pages, 50)), len(r.Pages)), len(r.Pages) > 0 && pct(r.Pages, 95) <= time.Second)
	add("photo on the console's live grid after its acknowledgement, p95", "≤ 2 s", fmt.Sprintf("%s (p50 %s, max %s)", ms(pct(r.Console, 95)), ms(pct(r.Console, 50)), ms(pct(r.Console, 100))), len(r.Console) > 0 && pct(r.Console, 95) <= 2*time.Second)
	add("photo on the walls after its acknowledgement (approved live), p95", "≤ 3 s", fmt.Sprintf("%s (p50 %s, max %s; of the slowest %d, %d acknowledged in the 20 s before a kill ended, %d HEICs)", ms(pct(r.Wall, 95)), ms(pct(r.Wall, 50)), ms(pct(r.Wall, 100)), r.WallTail.Photos, r.WallTail.NearKill, r.WallTail.HEIC), len(r.Wall) > 0 && pct(r.Wall, 95) <= 3*time.Second)
	add("album tile shows the photo (preview or thumb), p95", "≤ 10 s", fmt.Sprintf("%s (p50 %s, %d photos)", ms(pct(r.Tiles, 95)), ms(pct(r.Tiles, 50)), len(r.Tiles)), len(r.Tiles) > 0 && pct(r.Tiles, 95) <= 10*time.Second)
	add("… of the HEICs, p95", "≤ 10 s", fmt.Sprintf("%s (p50 %s, %d photos; of the slowest %d, %d acknowledged in the 20 s before a kill ended)", ms(pct(r.TileHEIC, 95)), ms(pct(r.TileHEIC, 50)), len(r.TileHEIC), r.TileHEICTail.Photos, r.TileHEICTail.NearKill), len(r.TileHEIC) > 0 && pct(r.TileHEIC, 95) <= 10*time.Second)
	from, to, g := growth(r.Samples, r.Evening, func(s Sample) float64 { return float64(s.RSS) })
	add("RSS over the last two thirds", "grows < 5 %", fmt.Sprintf("%+.1f %% (median %.0f MiB after warm-up, %.0f MiB at the end)", 100*g, from/(1<<20), to/(1<<20)), g < 0.05)
	gf, gt, gg := growth(r.Samples, r.Evening, func(s Sample) float64 { return float64(s.Goroutines) })
	add("goroutines over the last two thirds", "flat (< 10 % or 20)", fmt.Sprintf("%.0f → %.0f (%+.1f %%)", gf, gt, 100*gg), gg < 0.10 || gt-gf < 20)
	add("every thumbnail made after the last upload", "≤ 2 min", r.ThumbsAfter.Round(time.Second).String(), r.ThumbsAfter <= 2*time.Minute)
	state("every HEIC sharp after the last upload (its thumbnail item until then)", r.SharpAfter.Round(time.Second).String())
	perByte := float64(r.Written) / float64(max(r.Stored, 1))
	add("bytes written per byte stored", "≤ 1.1", fmt.Sprintf("%.3f (%.1f GB written for %.1f GB stored)", perByte, float64(r.Written)/1e9, float64(r.Stored)/1e9), perByte <= 1.1)
	add("export of the party vs rclone copy of the same files", "≤ 1.1×", fmt.Sprintf("%.2f× (%s vs %s, %.1f GB)", ratio(r.Export, r.Rclone), r.Export.Round(time.Second), r.Rclone.Round(time.Second), float64(r.ExportBytes)/1e9), ratio(r.Export, r.Rclone) <= 1.1)
	add("ZIP of everything vs zip -0 of the files", "≤ 1.1×", fmt.Sprintf("%.2f× (%s vs %s, %.1f GB)", ratio(r.ZIP, r.ZIPRef), r.ZIP.Round(time.Second), r.ZIPRef.Round(time.Second), float64(r.ZIPBytes)/1e9), ratio(r.ZIP, r.ZIPRef) <= 1.1)
	add("booth photos printed (cups-pdf)", fmt.Sprint(r.Scale.BoothPhotos), fmt.Sprint(r.Prints), r.Prints >= r.Scale.BoothPhotos)
	add("guest mails at the SMTP server", fmt.Sprint(r.Scale.Contacts), fmt.Sprintf("%d, the last %s after the end", r.Mails, r.MailsAfter.Round(time.Second)), r.Mails >= r.Scale.Contacts)
	state("database per photo", fmt.Sprintf("%.1f KiB (%.1f MiB for %d photos and videos)", float64(r.DBBytes)/1024/float64(max(r.Photos, 1)), float64(r.DBBytes)/(1<<20), r.Photos))
	state("the card's writes for the party", fmt.Sprintf("%.1f GB", float64(r.Written)/1e9))
	state("album PDF (4 a page)", fmt.Sprintf("%s, %.1f MB", r.Album.Round(time.Second), float64(r.AlbumBytes)/1e6))
	var down []string
	for _, d := range r.Downtime {
		down = append(down, d.Round(100*time.Millisecond).String())
	}
	state("kill -9, then answering again after", strings.Join(down, ", "))
	state("guestbook", fmt.Sprintf("%d voice notes, %d texts, %d hearts", r.Voice, r.Texts, r.Hearts))
	state("the evening; the whole run", fmt.Sprintf("%s; %s", r.Evening.Round(time.Second), r.Whole.Round(time.Second)))
	return out
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Missed lists the figures whose bound was missed.
func (r *Result) Missed() []string {
	var out []string
	for _, f := range r.Figures() {
		if !f.OK {
			out = append(out, f.What)
		}
	}
	return out
}

// Markdown is the report: the scale, the link, the figures beside their
// bounds and the errors seen.
func (r *Result) Markdown(chart string) string {
	var b strings.Builder
	s := r.Scale
	fmt.Fprintf(&b, "# A party on the %s stand-in\n\n", r.Profile)
	fmt.Fprintf(&b, "%d guests, %d photos, %d videos (%d–%d MB), %d voice notes, %d texts, %d hearts, %d booth photos printed, %d walls and %d consoles open, %d gallery visits, %d kill -9; an evening of %s (a real one %.0f× longer).\n\n",
		s.Guests, s.Photos, s.Videos, s.VideoMin>>20, s.VideoMax>>20, s.VoiceNotes, s.Messages, s.Hearts, s.BoothPhotos, s.Walls, s.Consoles, s.GalleryVisits, s.Kills, s.Evening, s.Compression)
	fmt.Fprintf(&b, "The guests' link: %s.", r.Shape)
	if r.ToolCPUs != "" {
		fmt.Fprintf(&b, " The tool ran on CPU %s, off the stand-in's.", r.ToolCPUs)
	}
	b.WriteString("\n\n")
	b.WriteString("| figure | bound | measured | |\n|---|---|---|---|\n")
	for _, f := range r.Figures() {
		mark := "ok"
		switch {
		case f.Stated:
			mark = ""
		case !f.OK:
			mark = "**missed**"
		}
		bound := f.Bound
		if f.Stated {
			bound = "stated"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", f.What, bound, f.Got, mark)
	}
	if chart != "" {
		fmt.Fprintf(&b, "\n![memory, health, image work waiting and phones sending over the evening](%s)\n", chart)
	}
	if len(r.RetryWhy) > 0 {
		b.WriteString("\nWhy the first sends were tried again:\n\n")
		for _, e := range r.RetryWhy {
			fmt.Fprintf(&b, "- %s\n", e)
		}
	}
	if len(r.Errors) > 0 {
		b.WriteString("\nErrors seen:\n\n")
		for _, e := range r.Errors {
			fmt.Fprintf(&b, "- %s\n", e)
		}
	}
	return b.String()
}

// Chart is an SVG of the evening: RSS, the health check's latency, the
// image work waiting (first variants, and HEICs to sharpen) and the phones
// sending, one panel each, with the kills marked.
func (r *Result) Chart() string {
	const w, ph, left, gap = 900, 120, 70, 30
	panels := []struct {
		title string
		unit  string
		pts   func() [][2]float64
	}{
		{"daemon RSS", "MiB", func() (o [][2]float64) {
			for _, s := range r.Samples {
				if s.Up {
					o = append(o, [2]float64{s.At.Minutes(), float64(s.RSS) / (1 << 20)})
				}
			}
			return
		}},
		{"GET /api/health through the radio", "ms", func() (o [][2]float64) {
			for _, h := range r.Health {
				o = append(o, [2]float64{h.At.Minutes(), float64(h.D) / 1e6})
			}
			return
		}},
		{"image work waiting (first variants)", "jobs", func() (o [][2]float64) {
			for _, s := range r.Samples {
				if s.Up {
					o = append(o, [2]float64{s.At.Minutes(), float64(s.Variants)})
				}
			}
			return
		}},
		{"HEICs waiting to be sharpened", "jobs", func() (o [][2]float64) {
			for _, s := range r.Samples {
				if s.Up {
					o = append(o, [2]float64{s.At.Minutes(), float64(s.Sharpen)})
				}
			}
			return
		}},
		{"phones sending a file", "phones", func() (o [][2]float64) {
			for _, s := range r.Samples {
				o = append(o, [2]float64{s.At.Minutes(), float64(s.Busy)})
			}
			return
		}},
	}
	height := len(panels)*(ph+gap) + 30
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", w, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, height)
	xmax := max(r.Evening.Minutes(), 1)
	x := func(m float64) float64 { return left + (w-left-20)*m/xmax }
	for i, pn := range panels {
		top := float64(i*(ph+gap) + 20)
		pts := pn.pts()
		ymax := 1.0
		for _, p := range pts {
			ymax = max(ymax, p[1])
		}
		y := func(v float64) float64 { return top + ph - ph*v/ymax }
		fmt.Fprintf(&b, `<text x="%d" y="%.0f">%s (max %.0f %s)</text>`+"\n", left, top-4, pn.title, ymax, pn.unit)
		fmt.Fprintf(&b, `<rect x="%d" y="%.0f" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", left, top, w-left-20, ph)
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" text-anchor="end">%.0f</text><text x="%d" y="%.0f" text-anchor="end">0</text>`+"\n", left-4, top+10, ymax, left-4, top+ph)
		for _, k := range r.killsAt() {
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f" stroke="#c33" stroke-dasharray="4 3"/>`+"\n", x(k), x(k), top, top+ph)
		}
		if pn.unit == "ms" {
			for _, p := range pts {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="1.2" fill="#236"/>`, x(p[0]), y(p[1]))
			}
			b.WriteString("\n")
			continue
		}
		b.WriteString(`<polyline fill="none" stroke="#236" stroke-width="1.2" points="`)
		for _, p := range pts {
			fmt.Fprintf(&b, "%.1f,%.1f ", x(p[0]), y(p[1]))
		}
		b.WriteString(`"/>` + "\n")
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d">minutes of the evening (%.0f× faster than life); dashed: kill -9</text>`+"\n", left, height-6, r.Scale.Compression)
	b.WriteString("</svg>\n")
	return b.String()
}

// killsAt are the kills' moments in minutes of the evening.
func (r *Result) killsAt() []float64 {
	var out []float64
	for k := range r.Scale.Kills {
		out = append(out, r.Evening.Minutes()*float64(k+1)/float64(r.Scale.Kills+1))
	}
	return out
}

// execOutput runs a command and answers its output without the final
// newline.
func execOutput(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	return strings.TrimSpace(string(out)), err
}

// over answers the share of ds longer than d, in percent.
func over(ds []time.Duration, d time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	n := 0
	for _, x := range ds {
		if x > d {
			n++
		}
	}
	return 100 * float64(n) / float64(len(ds))
}
