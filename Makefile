# webgate — build, install and test entry points.
GO ?= go
BIN ?= bin
GOBIN ?= $(shell $(GO) env GOPATH)/bin

.PHONY: build install test bench bench-hooks

# build puts webgate, websearch and webfetch in ./bin.
build:
	$(GO) build -trimpath -o $(BIN)/ ./cmd/webgate ./hooks/websearch ./hooks/webfetch ./hooks/webgate-hook

# install builds the three binaries into $(GOBIN) and runs 'webgate doctor'
# (which exits non-zero, without failing the install, until keys are set).
install:
	$(GO) install -trimpath ./cmd/webgate ./hooks/websearch ./hooks/webfetch ./hooks/webgate-hook
	@echo "installed webgate, websearch, webfetch and webgate-hook in $(GOBIN)"
	-$(GOBIN)/webgate doctor

# test runs vet and the whole suite with the race detector. The end-to-end
# tests use the real Claude Code CLI, installed from the npm registry into a
# cache directory when npm is available (they skip without it, outside CI).
test:
	$(GO) vet ./...
	WEBGATE_CLAUDE_BIN="$${WEBGATE_CLAUDE_BIN:-$$(bash .ci/install-claude.sh 2>/dev/null || true)}" \
		$(GO) test -race -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./...
