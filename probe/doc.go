// Package probe inspects uploaded videos and voice notes without decoding them.
//
// It reads container headers only, in pure Go: ISO-BMFF (MP4, MOV, M4A),
// Matroska/WebM, Ogg/Opus and MP3. [Video] decides whether an upload is an
// MP4, MOV or WebM with a video track and how long it plays; [Audio] does the
// same for the voice-note formats the guestbook accepts (WebM/Opus, Ogg/Opus,
// MP4/AAC as Safari records it, and MP3).
//
// Uploads come from strangers, so every probe is bounded: reads go through a
// fixed 4 KiB window (Ogg also reads its first and last page, at most 64 KiB
// each; no allocation is ever sized by a field of the file), the
// number of boxes, elements, pages and frames walked is capped, and payloads
// such as mdat and video blocks are skipped by seeking, never read. A file
// that is malformed, truncated or of the wrong kind yields an error wrapping
// [ErrInvalid]; any other error comes from the underlying reader or context.
package probe
