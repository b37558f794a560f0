package party

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Scale is how big the party is and how fast it is played.
type Scale struct {
	// Guests, Photos, Videos, VoiceNotes, Messages, Hearts, BoothPhotos:
	// how many of each over the evening; Contacts how many guests leave
	// their address for the gallery mail.
	Guests, Photos, Videos, VoiceNotes, Messages, Hearts, BoothPhotos, Contacts int
	// Walls and Consoles stay open all evening; GalleryVisits come now
	// and then.
	Walls, Consoles, GalleryVisits int
	// Kills is how many times the daemon is killed (kill -9) during the
	// evening.
	Kills int
	// Evening is how long the evening is played (a real one is
	// Compression times longer).
	Evening     time.Duration
	Compression float64
	// VideoMin and VideoMax bound the videos' sizes in bytes.
	VideoMin, VideoMax int64
	// Seed makes the plan.
	Seed uint64
}

// Wedding is the party: 300 guests, six hours played in 30
// minutes.
var Wedding = Scale{Guests: 300, Photos: 3000, Videos: 150, VoiceNotes: 100, Messages: 200, Hearts: 3000,
	BoothPhotos: 200, Contacts: 250, Walls: 3, Consoles: 2, GalleryVisits: 10, Kills: 3,
	Evening: 30 * time.Minute, Compression: 12, VideoMin: 20 << 20, VideoMax: 300 << 20, Seed: 1}

// Action is one thing a guest does at a time of the evening.
type Action struct {
	// At is when, from the evening's start.
	At time.Duration
	// Guest is who (an index into the guests).
	Guest int
	// What is done: a photo of Kind (N its number), a video of Size, a
	// voice note, a text, a heart, a page load.
	What  What
	Kind  Kind
	N     int
	Size  int64
	Cut   bool
	Cut01 float64
}

// What an action does.
type What int

// The actions.
const (
	DoPhoto What = iota
	DoVideo
	DoVoice
	DoText
	DoHeart
	DoPage
)

// Plan is the evening: each guest's arrival and actions in time order,
// the booth's photos, the gallery visits and the kills.
type Plan struct {
	Arrive  []time.Duration
	Contact []bool
	// Actions are every guest's, in time order.
	Actions [][]Action
	Booth   []time.Duration
	Visits  []time.Duration
	Kills   []time.Duration
}

// NewPlan draws the evening of s: guests arrive over its first 40 %;
// photos come at a steady rate with three peaks (the ceremony, the first
// dance, the cake: 15 %, 50 % and 80 % of the evening) and never before
// their guest arrives; a few guests take most photos (a guest's share is
// drawn from a long-tailed law); a video in four is cut during its
// upload and resumed; the kills are evenly spaced.
func NewPlan(s Scale) Plan {
	rng := rand.New(rand.NewPCG(s.Seed, 42))
	e := float64(s.Evening)
	p := Plan{Arrive: make([]time.Duration, s.Guests), Contact: make([]bool, s.Guests), Actions: make([][]Action, s.Guests)}
	for g := range s.Guests {
		p.Arrive[g] = time.Duration(e * 0.4 * rng.Float64() * rng.Float64()) // most come early
		p.Contact[g] = g < s.Contacts
	}
	rng.Shuffle(len(p.Contact), func(i, j int) { p.Contact[i], p.Contact[j] = p.Contact[j], p.Contact[i] })
	weight := make([]float64, s.Guests)
	total := 0.0
	for g := range weight {
		weight[g] = math.Exp(rng.NormFloat64() * 1.1) // log-normal: some guests take many
		total += weight[g]
	}
	guest := func() int {
		x := rng.Float64() * total
		for g, w := range weight {
			if x -= w; x < 0 {
				return g
			}
		}
		return s.Guests - 1
	}
	when := func(g int) time.Duration {
		var t float64
		if rng.IntN(10) < 3 {
			peak := []float64{0.15, 0.5, 0.8}[rng.IntN(3)]
			t = e * (peak + 0.03*rng.NormFloat64())
		} else {
			t = e * rng.Float64()
		}
		t = max(t, float64(p.Arrive[g])+float64(time.Second)*rng.Float64()*20)
		if t > e*0.97 {
			// Past the evening's end (a late peak's tail): somewhere in
			// the guest's evening, not all at its last moment.
			t = float64(p.Arrive[g]) + (e*0.97-float64(p.Arrive[g]))*rng.Float64()
		}
		return time.Duration(t)
	}
	add := func(a Action) { p.Actions[a.Guest] = append(p.Actions[a.Guest], a) }
	kinds := make([]Kind, 0, s.Photos)
	for k, share := range Mix {
		for range s.Photos * share / 100 {
			kinds = append(kinds, Kind(k))
		}
	}
	for len(kinds) < s.Photos {
		kinds = append(kinds, PhoneJPEG)
	}
	rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	for n, k := range kinds {
		g := guest()
		add(Action{At: when(g), Guest: g, What: DoPhoto, Kind: k, N: n})
	}
	for n := range s.Videos {
		g := guest()
		// Most videos are short; a few are long: log-uniform sizes.
		size := int64(float64(s.VideoMin) * math.Pow(float64(s.VideoMax)/float64(s.VideoMin), rng.Float64()*rng.Float64()))
		add(Action{At: when(g), Guest: g, What: DoVideo, N: n, Size: size, Cut: n%4 == 3, Cut01: 0.2 + 0.6*rng.Float64()})
	}
	for n := range s.VoiceNotes {
		g := rng.IntN(s.Guests)
		add(Action{At: when(g), Guest: g, What: DoVoice, N: n})
	}
	for n := range s.Messages {
		g := rng.IntN(s.Guests)
		add(Action{At: when(g), Guest: g, What: DoText, N: n})
	}
	for n := range s.Hearts {
		g := rng.IntN(s.Guests)
		at := max(when(g), time.Duration(e*0.05))
		add(Action{At: at, Guest: g, What: DoHeart, N: n})
	}
	for g := range s.Guests {
		add(Action{At: p.Arrive[g], Guest: g, What: DoPage})
		for range 2 { // the page opened again later in the evening
			add(Action{At: when(g), Guest: g, What: DoPage})
		}
	}
	for g := range p.Actions {
		slices.SortStableFunc(p.Actions[g], func(a, b Action) int { return int(a.At - b.At) })
	}
	for n := range s.BoothPhotos {
		p.Booth = append(p.Booth, time.Duration(e*(0.2+0.7*float64(n)/float64(max(1, s.BoothPhotos)))))
	}
	for range s.GalleryVisits {
		p.Visits = append(p.Visits, time.Duration(e*(0.3+0.65*rng.Float64())))
	}
	slices.Sort(p.Visits)
	for k := range s.Kills {
		p.Kills = append(p.Kills, time.Duration(e*float64(k+1)/float64(s.Kills+1)))
	}
	return p
}

// Count is how many actions of w the plan holds.
func (p Plan) Count(w What) int {
	n := 0
	for _, as := range p.Actions {
		for _, a := range as {
			if a.What == w {
				n++
			}
		}
	}
	return n
}
