package daemon

import "context"

// The changes of photos and messages that the live streams hear of
// (daemon/live's Publisher), as the areas that make them call them.

// photosOnWall reads which of the photos are on the wall before a change
// (live.Publisher.PhotosOnWall).
func (s *Server) photosOnWall(ctx context.Context, ids []string) map[string]bool {
	return s.changes.PhotosOnWall(ctx, ids)
}

// messagesOnWall is photosOnWall for guestbook messages
// (live.Publisher.MessagesOnWall).
func (s *Server) messagesOnWall(ctx context.Context, ids []string) map[string]bool {
	return s.changes.MessagesOnWall(ctx, ids)
}

// photosChanged publishes the photos' state after a change
// (live.Publisher.PhotosChanged).
func (s *Server) photosChanged(ctx context.Context, eventID string, ids []string, added bool, before map[string]bool) {
	s.changes.PhotosChanged(ctx, eventID, ids, added, before)
}

// photosRemoved publishes the removal of photos
// (live.Publisher.PhotosRemoved).
func (s *Server) photosRemoved(eventID string, ids []string, before map[string]bool) {
	s.changes.PhotosRemoved(eventID, ids, before)
}

// messagesChanged publishes the messages' state after a change
// (live.Publisher.MessagesChanged).
func (s *Server) messagesChanged(ctx context.Context, eventID string, ids []string, added bool, before map[string]bool) {
	s.changes.MessagesChanged(ctx, eventID, ids, added, before)
}

// messagesRemoved publishes the removal of messages
// (live.Publisher.MessagesRemoved).
func (s *Server) messagesRemoved(eventID string, ids []string, before map[string]bool) {
	s.changes.MessagesRemoved(eventID, ids, before)
}
