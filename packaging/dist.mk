# Cross-built binaries and Debian packages; the Makefile includes this file.
# `make dist` puts CGO-free binaries in dist/, `make deb` adds the .deb files.

GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# build-deb.sh turns it into a Debian version (v1.2.3-4-gabc -> 1.2.3+4+gabc).
DEB_VERSION ?= $(VERSION)
DIST_LDFLAGS = -s -w -X main.version=$(VERSION)
DIST_BUILD   = CGO_ENABLED=0 GOOS=linux $(GO) build -trimpath -ldflags "$(DIST_LDFLAGS)"

.PHONY: dist deb release dist/eventbox-linux-arm64 dist/eventbox-linux-armv7 dist/eventbox-linux-armv6 dist/eventbox-linux-amd64

## dist: static binaries for linux/arm64, arm (v7 and v6 for a Pi Zero) and amd64 in dist/
dist: dist/eventbox-linux-arm64 dist/eventbox-linux-armv7 dist/eventbox-linux-armv6 dist/eventbox-linux-amd64

dist/eventbox-linux-arm64:
	GOARCH=arm64 $(DIST_BUILD) -o $@ ./cmd/eventbox
dist/eventbox-linux-armv7:
	GOARCH=arm GOARM=7 $(DIST_BUILD) -o $@ ./cmd/eventbox
dist/eventbox-linux-armv6:
	GOARCH=arm GOARM=6 $(DIST_BUILD) -o $@ ./cmd/eventbox
dist/eventbox-linux-amd64:
	GOARCH=amd64 $(DIST_BUILD) -o $@ ./cmd/eventbox

## deb: .deb packages for arm64, armhf and amd64 in dist/ (needs dpkg-deb)
# armhf carries the ARMv6 build: Raspberry Pi OS's 32-bit armhf also runs
# on the ARMv6 Pi Zero and Pi 1, where an ARMv7 binary would crash.
deb: dist
	sh packaging/build-deb.sh $(DEB_VERSION) arm64 dist/eventbox-linux-arm64 dist
	sh packaging/build-deb.sh $(DEB_VERSION) armhf dist/eventbox-linux-armv6 dist
	sh packaging/build-deb.sh $(DEB_VERSION) amd64 dist/eventbox-linux-amd64 dist

## release: dist/release.json, the signed release manifest of the dist/ binaries that
## UPDATE_URL serves (RELEASE_KEY=the key file of `eventbox release-sign -keygen`;
## RELEASE_URL=where dist/ is published, else the URLs are relative to the manifest)
release: dist
	@test -n "$(RELEASE_KEY)" || { echo "release: set RELEASE_KEY to the signing key file"; exit 1; }
	$(GO) run -tags "$(DIST_TAGS)" ./cmd/eventbox release-sign -key "$(RELEASE_KEY)" -version "$(VERSION:v%=%)" \
		$(if $(RELEASE_URL),-base-url "$(RELEASE_URL)") -out dist/release.json \
		arm64=dist/eventbox-linux-arm64 armv7=dist/eventbox-linux-armv7 \
		armv6=dist/eventbox-linux-armv6 amd64=dist/eventbox-linux-amd64
