# webgate — build and test entry points.
GO ?= go
BIN ?= bin

.PHONY: build install test bench
build:
	$(GO) build -o $(BIN)/ ./cmd/webgate ./hooks/websearch ./hooks/webfetch

install:
	$(GO) install ./cmd/webgate ./hooks/websearch ./hooks/webfetch

test:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./...
