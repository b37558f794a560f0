// Package signage draws the printed signs of an event as PDF: table cards
// (A6 or A5, several to an A4 sheet with cut marks), a poster (A4 or A3)
// and one card per place. Each sign says how to join: step 1, the box's
// Wi-Fi (its name, passphrase and a Wi-Fi QR code) when there is one;
// step 2, the event's QR code to scan and share, with the access code when
// the event has one; and a short line in the event's language. Colours,
// logo and the QR codes' style are the event's; the caller draws the QR
// codes (qr) and hands them in as PNG.
//
// Text uses the box's embedded fonts, picking for each character the first
// font that has it (text), so an event name in any script prints.
package signage
