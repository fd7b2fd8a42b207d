// Package buildinfo is webgate's one version: what --version prints, what
// the User-Agent sends and what doctor compares.
//
// A build from a module version (go install …@v1.2.3) reports that
// version, read from the binary's build information. A local build is
// stamped by make install with
//
//	-ldflags "-X github.com/webgate-dev/webgate/internal/buildinfo.version=v1.2.3-4-gabcdef0"
//
// A build in a git checkout without that stamp reports the pseudo-version
// the Go toolchain derives from the commit ("v0.0.0-…-cb1c2b7d64be", with
// "+dirty" for uncommitted changes), and anything else reports
// "v<Release>-dev", with the VCS revision when the build recorded one. It
// imports only the standard library, so the hooks' small front binaries
// can use it too.
package buildinfo

import (
	"runtime/debug"
	"sync"
)

// Release is the version of the release this tree belongs to. The plugin
// manifest (.claude-plugin/plugin.json) states the same version; a build
// that has no other version reports "v<Release>-dev".
const Release = "0.1.0"

// version is set at link time by local builds; see the package
// documentation.
var version string

var resolved = sync.OnceValue(func() string {
	if version != "" {
		return version
	}
	dev := "v" + Release + "-dev"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return dev
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return dev + "+" + s.Value[:12]
		}
	}
	return dev
})

// Version returns webgate's version: the stamped one, else the module
// version from the build information, else "v<Release>-dev" (with the VCS
// revision when known).
func Version() string { return resolved() }

// UserAgent is the User-Agent webgate sends to providers and pages unless
// configured otherwise: "webgate/<version> (+https://github.com/webgate-dev/webgate)".
func UserAgent() string {
	return "webgate/" + Version() + " (+https://github.com/webgate-dev/webgate)"
}
