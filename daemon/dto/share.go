package dto

import "eventbox/store"

// Share is the hosts' view of a gallery link: its list and creation
// answer it, and so does ending an event, which makes one. Never the
// password hash; the password itself when the box made it.
type Share struct {
	ID            string  `json:"id"`
	Token         string  `json:"token"`
	URL           string  `json:"url"`
	Label         *string `json:"label"`
	HasPassword   bool    `json:"hasPassword"`
	Password      *string `json:"password"`
	AllowDownload bool    `json:"allowDownload"`
	FavoritesOnly bool    `json:"favoritesOnly"`
	ExpiresAt     *int64  `json:"expiresAt"`
	Expired       bool    `json:"expired"`
	CreatedAt     int64   `json:"createdAt"`
}

// ShareOf builds the hosts' view of a gallery link; origin is the scheme
// and host its url starts with, now (epoch milliseconds) decides Expired.
func ShareOf(origin string, sh store.Share, now int64) Share {
	return Share{
		ID: sh.ID, Token: sh.Token, URL: origin + "/g/" + sh.Token, Label: NullString(sh.Label),
		HasPassword: sh.PasswordHash != "", Password: NullString(sh.Password), AllowDownload: sh.AllowDownload,
		FavoritesOnly: sh.FavoritesOnly, ExpiresAt: NullTime(sh.ExpiresAt),
		Expired: sh.ExpiredAt(now), CreatedAt: sh.CreatedAt,
	}
}

// Spot is a place of the event as the gallery and the guest page show it,
// for their place filter.
type Spot struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// SpotsOf lists the places as the gallery and the guest page show them,
// never nil.
func SpotsOf(spots []store.Spot) []Spot {
	out := make([]Spot, 0, len(spots))
	for _, sp := range spots {
		out = append(out, Spot{ID: sp.ID, Label: sp.Label})
	}
	return out
}
