// Package testimg makes the pictures that the imaging tests and benchmark
// need, so that no large fixture is checked in: phone-like photos (fine detail
// and sensor-like noise, so a 12 MP JPEG weighs what a phone's does), a
// picture whose quadrants show its orientation, pictures stored under each
// EXIF orientation, and EXIF blocks with an orientation and GPS position.
//
// Everything is deterministic for a given seed. The package is for tests and
// tools only; the daemon never imports it.
package testimg
