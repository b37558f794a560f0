# eventbox: the two commands are `make run` and `make test`.

GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
# How much `make test` runs each fuzz target: a smoke run of the seeds and
# 100 new inputs. A count, not a duration: Go 1.26's fuzzing coordinator can
# report its own deadline as a failure ("context deadline exceeded", with no
# crashing input) when a duration ends while a worker is still busy, which a
# loaded 2-core machine makes likely; a count has no deadline. Fuzz for real
# with `make fuzz FUZZTIME=10m`.
FUZZTIME ?= 100x
# Packages whose tests are pixel loops or one goroutine reading every file
# (docs: 8 s raced, 0.5 s not), and the browser tests (their time is
# Chromium's; the daemon they drive is raced by its own tests), run without
# -race: the detector makes them several times slower and finds nothing there. Every other package
# (`go list ./...` minus these) runs with -race, so a new package is raced
# unless it is added here, and a name here that no longer exists fails.
NORACE_PKGS := ./imaging/... ./qr ./album ./probe ./docs ./e2e
# Which test runs where is said by each test itself, with internal/
# testtool's markers (tools/testmarks finds them; docs/testing.md):
# testtool.Long (make test leaves it to make longtest: the real binary
# killed, hung or updated, a 150 MB video through a cutting proxy, the tus
# client in Node, the soak, printing through CUPS, signs and QR codes
# scanned, grid HEICs encoded and decoded), testtool.Unraced (its time is
# pixels or a child's memory: run without -race) and testtool.Quick (the
# browser tests make test runs: one or two for each page and axe on the
# main screens; make browsertest runs them all with every language and
# screen size).
# Raced packages whose tests mostly wait (cmd/eventbox: the built daemon
# driven from outside; netsetup: avahi in network namespaces, 9 s of real
# mDNS announcements) start first, so that their waiting overlaps the
# other packages' work instead of ending the run.
FIRST_PKGS := ./cmd/eventbox ./netsetup
# Linters, pinned and run with `go run`, so the module's go.mod stays clean.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOVULNCHECK := golang.org/x/vuln/cmd/govulncheck@v1.9.0

.PHONY: run run-setup build test vet lint unit fuzz cross vulncheck clean crashtest shots axe tusjs jslint browsertest longtest latency party s3server s3gateway s3test s3gatewaytest

## run: start eventbox on its embedded defaults at http://localhost:8080 (data in ./data)
run:
	$(GO) run ./cmd/eventbox serve

## run-setup: make run on a fresh data dir with the first-run setup page
## open (http://localhost:8080/setup), as on a new box; what the page sends
## is logged, not applied (EVENTBOX_SETUP_PREVIEW).
run-setup:
	DATA_DIR="$$(mktemp -d)" ADMIN_PASSWORD= EVENTBOX_SETUP_PREVIEW=1 $(GO) run ./cmd/eventbox serve

## build: a static binary for this machine in bin/
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/eventbox ./cmd/eventbox

## test: formatting, vet, staticcheck, the pages' JavaScript linted and type-checked, the tests (-race where there is concurrency), short fuzz runs and govulncheck
test: vet lint jslint axe unit fuzz vulncheck

vet:
	@unformatted="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

lint:
	$(GO) run $(STATICCHECK) ./...

# The raced packages, the unraced packages, the tests marked Unraced and
# the route-level scenarios (without -race, in DAEMON_SHARDS processes of
# one test binary: they mostly wait on servers and timers; make longtest
# runs them raced) run side by side, each stream's output held until it
# ends (tools/unit.sh). GORACE=atexit_sleep_ms=0: a raced test binary
# otherwise sleeps 1 s before it exits, once per package.
DAEMON_SHARDS ?= 3
unit:
	@GO="$(GO)" NORACE_PKGS="$(NORACE_PKGS)" FIRST_PKGS="$(FIRST_PKGS)" DAEMON_SHARDS=$(DAEMON_SHARDS) bash tools/unit.sh

# Every target runs even when one finds a failure; the failures are reported
# at the end.
FUZZ_TARGETS := FuzzVideo:./probe FuzzAudio:./probe \
	FuzzDecode:./imaging/internal/jpegdec FuzzCheck:./imaging \
	FuzzJPEGEnd:./imaging FuzzFormReader:./daemon/ingest \
	FuzzResumableHeaders:./daemon/resumable

fuzz:
	@failed=""; \
	for t in $(FUZZ_TARGETS); do \
		echo "$(GO) test -run '^$$' -fuzz '^$${t%%:*}$$' -fuzztime $(FUZZTIME) $${t#*:}"; \
		$(GO) test -run '^$$' -fuzz "^$${t%%:*}\$$" -fuzztime $(FUZZTIME) "$${t#*:}" || failed="$$failed $${t%%:*}"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: failed:$$failed"; exit 1; fi

## cross: the plain CGO_ENABLED=0 build for this machine and the release
## builds for arm64 and armv7 (-trimpath, as make dist makes them), each
## checked statically linked with file(1) (packaging/ci-check.sh runs it in
## CI). The ARM builds share make dist's compiled packages and the plain one
## those of make test: compiling the daemon for one more target costs about
## three CPU minutes.
cross:
	@tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; rc=0; \
	for t in arm64::-trimpath arm:7:-trimpath amd64::; do \
		arch="$${t%%:*}"; rest="$${t#*:}"; arm="$${rest%%:*}"; flags="$${rest#*:}"; \
		echo "CGO_ENABLED=0 GOOS=linux GOARCH=$$arch $${arm:+GOARM=$$arm }go build $${flags:+$$flags }./cmd/eventbox"; \
		CGO_ENABLED=0 GOOS=linux GOARCH=$$arch GOARM=$$arm $(GO) build $$flags -o "$$tmp/eventbox-$$arch" ./cmd/eventbox || { rc=1; continue; }; \
		if command -v file >/dev/null && ! file "$$tmp/eventbox-$$arch" | grep -q 'statically linked'; then \
			echo "cross: the $$arch binary is not statically linked: $$(file -b "$$tmp/eventbox-$$arch")"; rc=1; \
		fi; \
	done; exit $$rc

## crashtest: guests upload while the built binary is killed with SIGKILL
## CRASH_KILLS times and restarted on the same data; every answered upload
## must survive whole and no file or temp file may be left unnamed
## (`make test` runs a short variant of the same test)
CRASH_KILLS ?= 200
crashtest:
	EVENTBOX_LONG=1 EVENTBOX_CRASH_KILLS=$(CRASH_KILLS) $(GO) test -count=1 -timeout 60m -run '^TestCrashUploads$$' -v ./cmd/eventbox

# vulncheck needs https://vuln.go.dev (or $$GOVULNDB); where it cannot be
# reached it says so in one line and does not fail the build.
vulncheck:
	@db="$${GOVULNDB:-https://vuln.go.dev}"; \
	if command -v curl >/dev/null && ! err="$$(curl -fsS -m 10 -o /dev/null "$$db/index/db.json.gz" 2>&1)"; then \
		echo "govulncheck: SKIPPED, the vulnerability database $$db is unreachable: $$err"; exit 0; \
	fi; \
	out="$$($(GO) run $(GOVULNCHECK) ./... 2>&1)"; rc=$$?; \
	if [ $$rc -ne 0 ] && printf '%s\n' "$$out" | grep -q 'fetching vulnerabilities'; then \
		echo "govulncheck: SKIPPED, the vulnerability database is unreachable: $$(printf '%s\n' "$$out" | grep -m1 'fetching vulnerabilities' | sed 's/^govulncheck: //')"; \
	else \
		printf '%s\n' "$$out"; exit $$rc; \
	fi

## longtest: the tests make test leaves out for its four minutes, those
## marked testtool.Long (raced, but those also marked testtool.Unraced),
## and the route-level scenarios under the race detector (make test runs
## them without it); run it before a release (not in .ci/run)
longtest: tusjs s3server s3gateway
	@eval "$$($(GO) run ./tools/testmarks)" || exit 1; \
	export EVENTBOX_WEED="$(WEED)" EVENTBOX_VERSITYGW="$(VERSITYGW)"; \
	echo "EVENTBOX_LONG=1 $(GO) test -race -run '$$LONG_RACED' $$LONG_RACED_PKGS"; \
	EVENTBOX_LONG=1 $(GO) test -race -count=1 -timeout 20m -run "$$LONG_RACED" $$LONG_RACED_PKGS || exit 1; \
	echo "$(GO) test -race ./daemon/scenarios (make test runs them without the detector)"; \
	GORACE=atexit_sleep_ms=0 $(GO) test -race -count=1 -timeout 20m ./daemon/scenarios || exit 1; \
	echo "EVENTBOX_LONG=1 $(GO) test -run '$$LONG_UNRACED' $$LONG_UNRACED_PKGS"; \
	EVENTBOX_LONG=1 $(GO) test -count=1 -timeout 20m -run "$$LONG_UNRACED" $$LONG_UNRACED_PKGS
## party: a whole wedding played against the real binary under the pi4
## stand-in (daemon/internal/party; docs/performance.md, "A whole
## party"): 300 guests through a link shaped like the box's radio, the
## walls, consoles and booth, three kill -9, then the mails, the ZIP, the
## album and the export; prints each figure beside its bound, exits
## non-zero on a miss and writes the report to docs/party/. About 75
## minutes (the evening is 30); needs root (a network namespace, tc, nftables), rclone, zip,
## cups-pdf. PARTY_FLAGS adds flags, e.g. "-party.profile pi3" or
## "-party.guests 60 -party.minutes 6" (the counts scale with the guests).
PARTY_FLAGS ?=
party: build
	$(GO) test -count=1 -v -timeout 3h -run '^TestParty$$' ./daemon/internal/party -args -party \
		-party.bin $(CURDIR)/bin/eventbox -party.report $(CURDIR)/docs/party $(PARTY_FLAGS)
## s3server: the SeaweedFS weed command the S3 export's tests start as a
## real S3-compatible server (s3store/s3test), built once from
## tools/s3server (a module of its own, so the product's go.mod stays clean)
## into the cache folder: about ten minutes and 2.5 GB of memory on two
## shared cores, a 230 MB binary; rebuilt only when tools/s3server changes
WEED ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/eventbox-s3/weed
s3server: $(WEED)
$(WEED): tools/s3server/go.mod tools/s3server/go.sum
	@mkdir -p "$(dir $(WEED))"
	cd tools/s3server && CGO_ENABLED=0 $(GO) build -o "$(WEED)" github.com/seaweedfs/seaweedfs/weed
## s3gateway: the versitygw command of the Versity S3 gateway, the real
## S3-compatible server CI runs the S3 export's tests against
## (s3store/s3test), built once from tools/s3gateway (a module of its own)
## into the cache folder: about 260 CPU-seconds (under five minutes on two
## shared cores) and 650 MB of memory, a 61 MB binary; rebuilt only when
## tools/s3gateway changes
VERSITYGW ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/eventbox-s3/versitygw
s3gateway: $(VERSITYGW)
$(VERSITYGW): tools/s3gateway/go.mod tools/s3gateway/go.sum
	@mkdir -p "$(dir $(VERSITYGW))"
	cd tools/s3gateway && CGO_ENABLED=0 $(GO) build -o "$(VERSITYGW)" github.com/versity/versitygw/cmd/versitygw
## s3test: the S3 export's tests against the two real servers alone,
## those named ...OnVersityGW and ...OnSeaweedFS (make longtest runs them
## among the others; .ci/run runs only the versitygw ones, in
## packaging/ci-check.sh: building weed costs about 850 CPU-seconds on a
## machine without the cache); make test runs their twins against gofakes3
s3test: s3server s3gateway
	EVENTBOX_LONG=1 EVENTBOX_REQUIRE_ALL=1 EVENTBOX_WEED="$(WEED)" EVENTBOX_VERSITYGW="$(VERSITYGW)" \
		$(GO) test -count=1 -timeout 10m -run 'On(SeaweedFS|VersityGW)$$' \
		./s3store/... ./daemon/cloudexport
## s3gatewaytest: the S3 export's tests against the Versity gateway alone,
## those named ...OnVersityGW, as CI's packaging lane runs them (about
## half a minute once make s3gateway built the command)
s3gatewaytest: s3gateway
	EVENTBOX_LONG=1 EVENTBOX_REQUIRE_ALL=1 EVENTBOX_VERSITYGW="$(VERSITYGW)" $(GO) test -count=1 -timeout 10m \
		-run 'OnVersityGW$$' \
		./s3store/... ./daemon/cloudexport
## latency: the image-bomb test held to the memory budget's quarter second
## for other requests while the daemon decodes each image (make longtest
## only fails on a stall of eight times that); on a quiet machine
latency:
	EVENTBOX_LONG=1 EVENTBOX_STRICT_LATENCY=1 $(GO) test -count=1 -v -run '^TestImageBombsStayWithinTheMemoryBudget$$' ./daemon/scenarios/
## browsertest: every browser test with every language and screen size of
## those that sweep them (every page in fr, it and es; the console's
## screens, moderation and About at every size in three languages; hearts,
## the end card, dates and the wall's countdown); make test runs only their
## quick cases (-sweep; swept and sweepOnly in e2e/harness_test.go).
## Run it before a release and after touching a page (not in .ci/run).
# BROWSERTEST_SKIP names tests to leave out: after make test, those marked
# testtool.Quick (none of them sweeps: they would run again exactly as they
# did): eval "$$(go run ./tools/testmarks)"; make browsertest BROWSERTEST_SKIP="$$QUICK".
BROWSERTEST_SKIP ?= ^$$
browsertest: axe
	$(GO) test -count=1 -timeout 30m -skip '$(BROWSERTEST_SKIP)' ./e2e -sweep

## shots: screenshots of the main pages at phone, laptop and venue-screen
## sizes in English and French, in $(SHOTS) (not committed)
SHOTS ?= /tmp/eventbox-shots
shots: axe
	$(GO) test -count=1 -run '^TestShots' ./e2e -shots $(abspath $(SHOTS))
	@echo "screenshots in $(SHOTS)"

## axe: fetch axe-core (pinned, checked against its npm integrity) from the
## npm registry into e2e/testdata/axe for the accessibility tests (not
## committed: 650 KB). Without the network it says so and the tests skip.
AXE_VERSION = 4.14.1
AXE_SHA512 = FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ==
AXE_DIR = e2e/testdata/axe
AXE_TGZ = $(AXE_DIR)/axe-core-$(AXE_VERSION).tgz
axe:
	@if [ -f $(AXE_DIR)/axe.min.js ]; then exit 0; fi; \
	mkdir -p $(AXE_DIR); \
	if ! curl -fsSL -m 60 -o $(AXE_TGZ) https://registry.npmjs.org/axe-core/-/axe-core-$(AXE_VERSION).tgz; then \
		rm -f $(AXE_TGZ); echo "axe: SKIPPED, axe-core $(AXE_VERSION) could not be fetched from the npm registry: the accessibility tests will skip"; exit 0; \
	fi; \
	if [ "$$(openssl dgst -sha512 -binary $(AXE_TGZ) | base64 -w0)" != "$(AXE_SHA512)" ]; then \
		rm -f $(AXE_TGZ); echo "axe-core-$(AXE_VERSION).tgz: integrity mismatch"; exit 1; \
	fi; \
	tar -xzf $(AXE_TGZ) -C $(AXE_DIR) --strip-components=1 package/axe.min.js package/LICENSE && rm -f $(AXE_TGZ)

## tusjs: install the official tus client, tus-js-client (pinned with its
## dependencies and their npm integrity in $(TUSJS_DIR)/package-lock.json),
## from the npm registry into $(TUSJS_DIR)/node_modules for the test that
## uploads with it (not committed: 4 MB). Without npm or the network it
## says so and the test skips.
TUSJS_DIR = daemon/testdata/tusjs
tusjs:
	@if [ -f $(TUSJS_DIR)/node_modules/tus-js-client/package.json ] && \
		grep -q "\"version\": \"$$(sed -n 's/.*"tus-js-client": "\(.*\)".*/\1/p' $(TUSJS_DIR)/package.json)\"" $(TUSJS_DIR)/node_modules/tus-js-client/package.json; then exit 0; fi; \
	if ! command -v npm >/dev/null; then \
		echo "tusjs: SKIPPED, npm is not installed (Debian packages nodejs npm): the tus-js-client test will skip"; exit 0; \
	fi; \
	if ! (cd $(TUSJS_DIR) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null); then \
		echo "tusjs: SKIPPED, tus-js-client could not be installed from the npm registry: the tus-js-client test will skip"; exit 0; \
	fi

## jslint: ESLint (the recommended rules, browser globals, ES modules) and
## TypeScript's checker (tsc --noEmit --checkJs; each file says // @ts-check)
## over the pages' JavaScript in assets/web/js, with zero findings allowed.
## Both are pinned with their dependencies and npm integrity in
## $(JSLINT_DIR)/package-lock.json and installed from the npm registry into
## $(JSLINT_DIR)/node_modules (not committed: 38 MB). Without npm or the
## network it says SKIPPED; with EVENTBOX_REQUIRE_ALL=1 (.ci/run) that fails.
JSLINT_DIR = tools/jslint
jslint:
	@skip() { echo "jslint: SKIPPED, $$1: the pages' JavaScript is not checked"; \
		if [ "$$EVENTBOX_REQUIRE_ALL" = 1 ]; then echo "jslint: EVENTBOX_REQUIRE_ALL=1: a skipped check fails"; exit 1; fi; exit 0; }; \
	if ! cmp -s $(JSLINT_DIR)/package-lock.json $(JSLINT_DIR)/node_modules/.eventbox-lock.json; then \
		command -v npm >/dev/null || skip "npm is not installed (Debian packages nodejs npm)"; \
		(cd $(JSLINT_DIR) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null) || \
			skip "ESLint and TypeScript could not be installed from the npm registry"; \
		cp $(JSLINT_DIR)/package-lock.json $(JSLINT_DIR)/node_modules/.eventbox-lock.json; \
	fi; \
	unchecked="$$(for f in assets/web/js/*.js; do head -n1 "$$f" | grep -qx '// @ts-check' || echo "$$f"; done)"; \
	if [ -n "$$unchecked" ]; then echo "jslint: these do not start with // @ts-check:"; echo "$$unchecked"; exit 1; fi; \
	$(JSLINT_DIR)/node_modules/.bin/eslint -c $(JSLINT_DIR)/eslint.config.js --max-warnings 0 assets/web/js && \
	$(JSLINT_DIR)/node_modules/.bin/tsc -p $(JSLINT_DIR)/tsconfig.json && \
	echo "jslint: ESLint and tsc found nothing in assets/web/js"

clean:
	rm -rf bin dist

-include packaging/dist.mk

## image: a card image for Raspberry Pi 3, 4, 5 and Zero 2 W (arm64) in
## $(IMAGE_OUT), from Debian's packages and the arm64 .deb; as root, with
## mmdebstrap, qemu-user-static, binfmt-support, fdisk, dosfstools, mtools
## (packaging/image/README.md)
IMAGE_SUITE ?= trixie
IMAGE_MIRROR ?= http://deb.debian.org/debian
IMAGE_OUT ?= dist/eventbox-$(VERSION)-arm64.img
# Where the image's .deb is made (CI keeps it out of dist/, which the
# packaging checks rebuild meanwhile; IMAGE_DEB_READY, when set, names a
# file touched once the .deb is made).
IMAGE_DEB_DIR ?= dist/image-deb
.PHONY: image
image: dist/eventbox-linux-arm64
	rm -rf $(IMAGE_DEB_DIR) && sh packaging/build-deb.sh $(DEB_VERSION) arm64 dist/eventbox-linux-arm64 $(IMAGE_DEB_DIR)
	@if [ -n "$$IMAGE_DEB_READY" ]; then touch "$$IMAGE_DEB_READY"; fi
	IMAGE_SUITE=$(IMAGE_SUITE) IMAGE_MIRROR=$(IMAGE_MIRROR) \
		nice -n 19 ionice -c3 bash packaging/image/build.sh $(IMAGE_DEB_DIR)/eventbox_*_arm64.deb $(IMAGE_OUT)

## boxtest: the card image ($(BOXTEST_IMAGE), made by make image when it
## is missing) booted in qemu-system-aarch64 as the box: its hotspot on a
## virtual radio, a guest's phone and the hosts' home Wi-Fi on two more,
## and power cuts that lose unflushed writes, one of them during an export
## to the Versity S3 gateway (make s3gateway) run on this machine
## (packaging/boxtest); as root, with qemu-system-arm, qemu-utils,
## e2fsprogs, mtools
BOXTEST_IMAGE ?= $(IMAGE_OUT)
BOXTEST_RUN ?= .
# How many scenarios (each its own machine, 1 GiB and two emulated cores)
# run at once when BOXTEST_RUN picks some.
BOXTEST_PARALLEL ?= 2
# The whole suite runs as two lanes side by side, one machine at a time in
# each (packaging/boxtest/lanes.sh): the power cuts' box in one
# (BOXTEST_LANE), the crowd's and the blank box in the other.
BOXTEST_LANE := ^TestPowerCuts$$
.PHONY: boxtest
boxtest: s3gateway
	test -f $(BOXTEST_IMAGE) || $(MAKE) image IMAGE_OUT=$(BOXTEST_IMAGE)
	export EVENTBOX_VERSITYGW="$(VERSITYGW)"; \
	if [ '$(BOXTEST_RUN)' = . ]; then \
		EVENTBOX_IMAGE=$(abspath $(BOXTEST_IMAGE)) bash packaging/boxtest/lanes.sh '$(BOXTEST_LANE)'; \
	else \
		EVENTBOX_IMAGE=$(abspath $(BOXTEST_IMAGE)) go test -count=1 -v -timeout 90m -parallel $(BOXTEST_PARALLEL) -run '$(BOXTEST_RUN)' ./packaging/boxtest/; \
	fi

