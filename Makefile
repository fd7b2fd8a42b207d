# webgate — build, install and test entry points.
GO ?= go
BIN ?= bin
GOBIN ?= $(or $(shell $(GO) env GOBIN),$(shell $(GO) env GOPATH)/bin)
# VERSION stamps local builds (internal/buildinfo) when a release tag
# describes the checkout; otherwise the binaries report the pseudo-version
# the Go toolchain derives from the commit they were built from.
VERSION ?= $(shell git describe --tags --match 'v*' --dirty 2>/dev/null)
LDFLAGS := $(if $(VERSION),-ldflags "-X github.com/webgate-dev/webgate/internal/buildinfo.version=$(VERSION)")

.PHONY: build install test test-adversarial bench bench-hooks bench-extract

# build puts webgate and the hooks (websearch, webfetch and their worker
# webgate-hook) in ./bin.
# The binaries are built without cgo: statically linked, they start faster,
# which matters for hooks that run on every tool call.
build:
	CGO_ENABLED=0 $(GO) build -trimpath $(LDFLAGS) -o $(BIN)/ ./cmd/webgate ./cmd/websearch ./cmd/webfetch ./cmd/webgate-hook

# install builds the four binaries into $(GOBIN), warns when $(GOBIN) is not
# on PATH, and runs 'webgate doctor', which lists what is not set up yet
# (a provider key, the hooks' registration) as next steps. A problem doctor
# finds is reported, not turned into a make error: the install itself
# succeeded.
install:
	CGO_ENABLED=0 $(GO) install -trimpath $(LDFLAGS) ./cmd/webgate ./cmd/websearch ./cmd/webfetch ./cmd/webgate-hook
	@echo "installed webgate, websearch, webfetch and webgate-hook in $(GOBIN)"
	@case ":$$PATH:" in *":$(GOBIN):"* | *":$(GOBIN)/:"*) ;; *) \
		echo ""; \
		echo "warning: $(GOBIN) is not on your PATH, so your shell and the agents cannot find webgate and its hooks."; \
		echo "         Add it in your shell profile:  export PATH=\"$(GOBIN):\$$PATH\""; \
		echo "";; esac
	@$(GOBIN)/webgate doctor || echo "webgate is installed; fix the FAIL lines above, then run '$(GOBIN)/webgate doctor' again."

# test runs vet and the whole suite with the race detector. The end-to-end
# tests use the real Claude Code CLI, installed from the npm registry into a
# cache directory when npm is available (they skip without it, outside CI).
# The extraction quality floors (cmd/internal/extractbench) run without the race
# detector, which would make them ten times slower.
test:
	$(GO) vet ./...
	WEBGATE_CLAUDE_BIN="$${WEBGATE_CLAUDE_BIN:-$$(bash .ci/install-claude.sh 2>/dev/null || true)}" \
		$(GO) test -race -count=1 -skip Adversarial ./...
	$(GO) test -count=1 -run SubsetFloors ./cmd/internal/extractbench/
	$(MAKE) test-adversarial

# test-adversarial runs the hostile-input tests: the built hooks, the CLI and
# the MCP server against hostile pages, providers, payloads, settings files
# and state files, all on 127.0.0.1.
test-adversarial:
	$(GO) test -race -count=1 -run Adversarial ./...

# bench runs every benchmark; bench-hooks times the built hook binaries as
# whole processes (the figures in the README's performance table).
bench:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./...

bench-hooks:
	$(GO) test -run '^$$' -bench Process -benchtime 200x ./hooks/

# bench-extract reads every page of the WCXB development split (in
# ../shared/extraction/wcxb beside the repository, or WCXB_DIR) through the
# page reader and prints word F1 overall and per page type beside the
# published systems' figures (the README's reading-quality table).
WCXB_DIR ?= ../shared/extraction/wcxb
bench-extract:
	$(GO) run ./cmd/extractbench -dir $(WCXB_DIR)
