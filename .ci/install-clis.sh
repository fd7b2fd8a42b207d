#!/usr/bin/env bash
# Installs the pinned Copilot, Gemini and Codex CLIs from the npm registry for
# the e2e tests and prints, on stdout and nothing else, one line per CLI:
#
#   export WEBGATE_COPILOT_BIN=/…/copilot
#   export WEBGATE_GEMINI_BIN=/…/gemini
#   export WEBGATE_CODEX_BIN=/…/codex
#
# so that callers can write  eval "$(.ci/install-clis.sh)".
#
# Usage: .ci/install-clis.sh [copilot] [gemini] [codex]   (default: all three)
#   Each CLI goes into its own directory under $WEBGATE_CLIS_DIR (default
#   $HOME/.cache/webgate-e2e): copilot/, gemini/ and codex/.
#   WEBGATE_COPILOT_VERSION, WEBGATE_GEMINI_VERSION and WEBGATE_CODEX_VERSION
#   override the pinned versions.
#
# Idempotent: a CLI whose directory already holds the pinned version, and
# whose binary runs, is not downloaded again. Progress goes to stderr. The
# exit status is non-zero when any CLI asked for could not be installed; the
# lines of the others are printed all the same.
set -uo pipefail

copilot_version="${WEBGATE_COPILOT_VERSION:-1.0.102}"
gemini_version="${WEBGATE_GEMINI_VERSION:-0.61.0}"
codex_version="${WEBGATE_CODEX_VERSION:-0.169.0}"
root="${WEBGATE_CLIS_DIR:-$HOME/.cache/webgate-e2e}"

log() { printf 'install-clis: %s\n' "$*" >&2; }

case "$(uname -s)" in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) log "unsupported OS $(uname -s)"; exit 1 ;;
esac
case "$(uname -m)" in
x86_64 | amd64) arch=x64; triple_arch=x86_64 ;;
aarch64 | arm64) arch=arm64; triple_arch=aarch64 ;;
*) log "unsupported CPU $(uname -m)"; exit 1 ;;
esac
musl=""
if [ "$os" = linux ] && ldd --version 2>&1 | grep -qi musl; then
	musl=1
fi

# Where each package puts the program the tests run.
copilot_bin() {
	local plat="$os-$arch"
	[ -n "$musl" ] && plat="linuxmusl-$arch"
	printf '%s\n' "$1/node_modules/@github/copilot-$plat/copilot"
}
gemini_bin() { printf '%s\n' "$1/node_modules/.bin/gemini"; }
codex_bin() {
	local triple
	if [ "$os" = linux ]; then
		triple="$triple_arch-unknown-linux-musl"
	else
		triple="$triple_arch-apple-darwin"
	fi
	printf '%s\n' "$1/node_modules/@openai/codex-$os-$arch/vendor/$triple/bin/codex"
}

# The version a binary reports, reduced to its dotted number.
version_of() {
	"$1" --version 2>/dev/null | grep -Eo '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1
}

# install NAME PACKAGE VERSION VAR: installs PACKAGE@VERSION into
# $root/NAME unless it is there already, and prints the export line.
install() {
	local name="$1" pkg="$2" version="$3" var="$4"
	local dir="$root/$name" bin
	bin="$("${name}_bin" "$dir")"
	if [ -x "$bin" ] && [ "$(version_of "$bin")" = "$version" ]; then
		log "$pkg $version already installed in $dir"
	else
		command -v npm >/dev/null 2>&1 || { log "npm not found"; return 1; }
		log "installing $pkg@$version into $dir"
		mkdir -p "$dir"
		local start
		start=$(date +%s)
		# --ignore-scripts: no package needs its install scripts for the
		# binaries run here (the platform packages ship them ready to run).
		if ! npm install --prefix "$dir" --no-save --no-audit --no-fund --ignore-scripts \
			--include=optional --loglevel=error "$pkg@$version" >&2; then
			log "npm install of $pkg@$version failed"
			return 1
		fi
		log "npm install took $(($(date +%s) - start))s"
		if [ ! -x "$bin" ]; then
			log "binary not found at $bin"
			return 1
		fi
		local got
		got="$(version_of "$bin")"
		if [ "$got" != "$version" ]; then
			log "unexpected version from $bin: '$got' (want $version)"
			return 1
		fi
		log "installed: $pkg $got"
	fi
	printf 'export %s=%q\n' "$var" "$bin"
}

want=("$@")
[ ${#want[@]} -eq 0 ] && want=(copilot gemini codex)
status=0
for name in "${want[@]}"; do
	case "$name" in
	copilot) install copilot @github/copilot "$copilot_version" WEBGATE_COPILOT_BIN || status=1 ;;
	gemini) install gemini @google/gemini-cli "$gemini_version" WEBGATE_GEMINI_BIN || status=1 ;;
	codex) install codex @openai/codex "$codex_version" WEBGATE_CODEX_BIN || status=1 ;;
	*) log "unknown CLI '$name' (want copilot, gemini or codex)"; status=1 ;;
	esac
done
exit $status
