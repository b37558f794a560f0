// Package packaging holds the files that turn the eventbox binary into a
// system service: the systemd unit, the Debian package layout and the
// cross-build rules (dist.mk). The unit text lives once, in eventbox.service,
// and is embedded here so that `eventbox service install` writes exactly what
// the .deb installs.
package packaging
