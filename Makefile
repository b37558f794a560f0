# eventbox: the two commands are `make run` and `make test`.

GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
# Packages with fuzz targets, and how long `make test` runs each one.
FUZZTIME ?= 10s

.PHONY: run build test vet unit fuzz cross clean crashtest

## run: start eventbox on its embedded defaults at http://localhost:8080 (data in ./data)
run:
	$(GO) run ./cmd/eventbox serve

## build: a static binary for this machine in bin/
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/eventbox ./cmd/eventbox

## test: formatting, vet, the race-enabled tests, short fuzz runs and the ARM builds
test: vet unit fuzz cross

vet:
	@unformatted="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

unit:
	$(GO) test -race -count=1 -timeout 15m ./...

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzVideo$$' -fuzztime $(FUZZTIME) ./daemon/probe
	$(GO) test -run '^$$' -fuzz '^FuzzAudio$$' -fuzztime $(FUZZTIME) ./daemon/probe

cross:
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -trimpath -o /dev/null ./cmd/eventbox
	CGO_ENABLED=0 GOOS=linux GOARCH=arm GOARM=7 $(GO) build -trimpath -o /dev/null ./cmd/eventbox
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 $(GO) build -trimpath -o /dev/null ./cmd/eventbox

## crashtest: guests upload while the built binary is killed with SIGKILL
## CRASH_KILLS times and restarted on the same data; every answered upload
## must survive whole and no file or temp file may be left unnamed
## (`make test` runs a short variant of the same test)
CRASH_KILLS ?= 200
crashtest:
	EVENTBOX_CRASH_KILLS=$(CRASH_KILLS) $(GO) test -count=1 -timeout 60m -run '^TestCrashUploads$$' -v ./cmd/eventbox

clean:
	rm -rf bin dist

-include packaging/dist.mk
