#!/usr/bin/env bash
# Installs the pinned Claude Code CLI from the npm registry for the e2e tests
# and prints the path of its native binary on stdout (and nothing else).
#
# Usage: .ci/install-claude.sh [DIR]
#   DIR defaults to $WEBGATE_CLAUDE_DIR, then $HOME/.cache/webgate-e2e/claude.
#   WEBGATE_CLAUDE_VERSION overrides the pinned version.
#
# Idempotent: when DIR already holds the pinned version and its binary runs,
# nothing is downloaded. Progress goes to stderr so that callers can write
#   WEBGATE_CLAUDE_BIN="$(.ci/install-claude.sh)"
set -euo pipefail

version="${WEBGATE_CLAUDE_VERSION:-2.1.330}"
dir="${1:-${WEBGATE_CLAUDE_DIR:-$HOME/.cache/webgate-e2e/claude}}"

log() { printf 'install-claude: %s\n' "$*" >&2; }

case "$(uname -s)" in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) log "unsupported OS $(uname -s)"; exit 1 ;;
esac
case "$(uname -m)" in
x86_64 | amd64) arch=x64 ;;
aarch64 | arm64) arch=arm64 ;;
*) log "unsupported CPU $(uname -m)"; exit 1 ;;
esac
platform="$os-$arch"
if [ "$os" = linux ] && ldd --version 2>&1 | grep -qi musl; then
	platform="$platform-musl"
fi

pkgdir="$dir/node_modules/@anthropic-ai/claude-code-$platform"
bin="$pkgdir/claude"

installed_version() {
	# Prints the version recorded in the platform package, or nothing.
	[ -f "$pkgdir/package.json" ] || return 0
	sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$pkgdir/package.json" | head -n 1
}

if [ "$(installed_version)" = "$version" ] && [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
	log "claude-code $version already installed in $dir"
	printf '%s\n' "$bin"
	exit 0
fi

command -v npm >/dev/null 2>&1 || { log "npm not found"; exit 1; }

log "installing @anthropic-ai/claude-code@$version into $dir"
mkdir -p "$dir"
start=$(date +%s)
# --ignore-scripts: the package's postinstall only links the platform binary
# into bin/; the tests run the platform binary directly, which does not need
# Node at all (the package's engines field only warns on older Node).
npm install --prefix "$dir" --no-save --no-audit --no-fund --ignore-scripts \
	--include=optional --loglevel=error \
	"@anthropic-ai/claude-code@$version" >&2
log "npm install took $(($(date +%s) - start))s"

if [ ! -x "$bin" ]; then
	log "native binary not found at $bin"
	exit 1
fi
got="$("$bin" --version 2>/dev/null || true)"
case "$got" in
"$version"*) ;;
*) log "unexpected version from $bin: '$got' (want $version)"; exit 1 ;;
esac
log "installed: $got"
printf '%s\n' "$bin"
