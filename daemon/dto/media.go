package dto

import "eventbox/store"

// Photo is a photo or video as the lists show it.
type Photo struct {
	ID          string  `json:"id"`
	Width       int     `json:"width"`
	Height      int     `json:"height"`
	GuestName   *string `json:"guestName"`
	Status      string  `json:"status"`
	Mine        bool    `json:"mine"`
	Downloads   *int    `json:"downloads,omitempty"`
	Favorite    *bool   `json:"favorite,omitempty"`
	Variants    *string `json:"variants,omitempty"` // admins only: VariantsState
	ChallengeID *string `json:"challengeId"`
	SpotID      *string `json:"spotId"`
	CreatedAt   int64   `json:"createdAt"`
	// TakenAt (added) is the EXIF capture time, epoch ms, or null.
	TakenAt *int64     `json:"takenAt"`
	Video   *VideoInfo `json:"video,omitempty"`
	// Hearts (added) is how many guests and gallery visitors hearted it.
	Hearts int `json:"hearts"`
	// ThumbReady (added) is false while the box is still making the
	// photo's thumb: a page then shows ?v=preview, answered at once, and
	// asks for the thumb beside it.
	ThumbReady bool `json:"thumbReady"`
}

// VideoInfo is what a video's answer adds.
type VideoInfo struct {
	DurationMs int64 `json:"durationMs"`
}

// PhotoOf builds the answer for a photo. viewerGuest is the guest id of
// the viewing guest ("" for others); admin adds the admin-only fields.
func PhotoOf(p store.Photo, viewerGuest string, admin bool) Photo {
	d := Photo{
		ID: p.ID, Width: p.Width, Height: p.Height, GuestName: NullString(p.GuestName),
		Status: p.Status, Mine: viewerGuest != "" && p.GuestID == viewerGuest,
		ChallengeID: NullString(p.ChallengeID), SpotID: NullString(p.SpotID), CreatedAt: p.CreatedAt,
		TakenAt: NullTime(p.TakenAt), Hearts: p.Hearts, ThumbReady: p.Variants || p.VariantsFailed,
	}
	if admin {
		downloads, favorite := p.Downloads, p.Favorite
		d.Downloads, d.Favorite = &downloads, &favorite
		state := VariantsState(p)
		d.Variants = &state
	}
	if p.Video != nil {
		d.Video = &VideoInfo{DurationMs: p.Video.DurationMs}
	}
	return d
}

// PhotoBody is the { photo } answer.
type PhotoBody struct {
	Photo Photo `json:"photo"`
}

// PhotoPageBody is a page of photos with the cursor of the next.
type PhotoPageBody struct {
	Photos     []Photo `json:"photos"`
	NextCursor *int64  `json:"nextCursor"`
}

// PhotoPage is the answer of a page of photos for a viewer (its guest id, or admin).
func PhotoPage(page store.Page[store.Photo], viewerGuest string, admin bool) PhotoPageBody {
	out := PhotoPageBody{Photos: make([]Photo, 0, len(page.Items))}
	for _, p := range page.Items {
		out.Photos = append(out.Photos, PhotoOf(p, viewerGuest, admin))
	}
	if page.Next != 0 {
		next := page.Next
		out.NextCursor = &next
	}
	return out
}

// Message is a guestbook message as the lists show it.
type Message struct {
	ID        string  `json:"id"`
	GuestName *string `json:"guestName"`
	Text      string  `json:"text"`
	Seconds   float64 `json:"seconds"`
	HasAudio  bool    `json:"hasAudio"`
	Status    string  `json:"status"`
	Mine      bool    `json:"mine"`
	CreatedAt int64   `json:"createdAt"`
}

// MessageOf is the answer of a message for a viewer (its guest id).
func MessageOf(m store.Message, viewerGuest string) Message {
	return Message{
		ID: m.ID, GuestName: NullString(m.GuestName), Text: m.Text, Seconds: m.Seconds,
		HasAudio: m.HasAudio(), Status: m.Status, Mine: viewerGuest != "" && m.GuestID == viewerGuest,
		CreatedAt: m.CreatedAt,
	}
}

// MessageBody is the { message } answer.
type MessageBody struct {
	Message Message `json:"message"`
}

// MessageListBody is a whole list of messages.
type MessageListBody struct {
	Messages []Message `json:"messages"`
}

// MessagePageBody is a page of messages with the cursor of the next.
type MessagePageBody struct {
	Messages   []Message `json:"messages"`
	NextCursor *int64    `json:"nextCursor"`
}

// MessagePage is the answer of a page of messages for a viewer.
func MessagePage(page store.Page[store.Message], viewerGuest string) MessagePageBody {
	out := MessagePageBody{Messages: make([]Message, 0, len(page.Items))}
	for _, m := range page.Items {
		out.Messages = append(out.Messages, MessageOf(m, viewerGuest))
	}
	if page.Next != 0 {
		next := page.Next
		out.NextCursor = &next
	}
	return out
}

// ChangedBody is the { changed } answer of a bulk action.
type ChangedBody struct {
	Changed int `json:"changed"`
}
