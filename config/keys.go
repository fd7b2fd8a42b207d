package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/webgate-dev/webgate/provider"
)

// KeySpec is a provider's key specification: one key, an inline pool
// "k1|k2", or the path of a key file (see [provider.ParseKeys]). It may hold
// secrets, so its String and GoString methods never print them: a path is
// shown as such, anything else as "[redacted]".
type KeySpec string

// String returns a printable form that never contains a key.
func (s KeySpec) String() string {
	t := strings.TrimSpace(string(s))
	switch {
	case t == "":
		return ""
	case provider.IsKeyPath(t):
		return "file " + t
	default:
		return "[redacted]"
	}
}

// GoString returns the same as String, so %#v is safe too.
func (s KeySpec) GoString() string { return fmt.Sprintf("config.KeySpec(%q)", s.String()) }

// MarshalText returns the same as String, so encoding a Config never
// leaks a key.
func (s KeySpec) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// keyState holds a provider's resolved keys. Configs hold it through an
// unexported pointer, so that fmt's %v and %+v print an address rather than
// the keys, and the values are reachable only through a pool.
type keyState struct {
	values []string
}

// expandHome replaces a leading "~/" (or a lone "~") with home. It leaves
// the path alone when home is empty.
func expandHome(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// providerKeys returns the key spec, resolved state and key order of the
// named provider, or nils for an unknown name.
func (c *Config) providerKeys(name string) (*KeySpec, **keyState, string) {
	a := c.sectionOf(name)
	if a == nil {
		return nil, nil, ""
	}
	return &a.Keys, &a.keys, a.KeyOrder
}

// ResolveKeys reads every provider's key specification with
// [provider.ParseKeys], expanding a leading "~/" with home first. [Load]
// calls it; call it yourself only for a Config built by hand. A spec that
// cannot be read leaves that provider without keys; the error names the
// setting and the path, never a key.
func (c *Config) ResolveKeys(home string) error {
	var errs []error
	c.keyFiles = nil
	for _, name := range c.registry().Names() {
		spec, st, _ := c.providerKeys(name)
		raw := expandHome(strings.TrimSpace(string(*spec)), home)
		if provider.IsKeyPath(strings.TrimSpace(string(*spec))) {
			c.keyFiles = append(c.keyFiles, raw)
		}
		keys, err := provider.ParseKeys(raw)
		if err != nil {
			key := "providers." + name + ".keys"
			msg := "cannot read the key file"
			if errors.Is(err, provider.ErrKeyFile) {
				// ParseKeys' message names the path and the reason only.
				msg = err.Error()
			}
			errs = append(errs, &Problem{Key: key, Source: c.Origin(key), Message: msg, Err: err})
			keys = nil
		}
		*st = &keyState{values: keys}
	}
	return joinProblems(errs)
}

// KeyCount returns how many keys the named provider has (0 for an unknown
// provider or one without keys). It never reveals the keys themselves.
func (c *Config) KeyCount(name string) int {
	_, st, _ := c.providerKeys(name)
	if st == nil || *st == nil {
		return 0
	}
	return len((*st).values)
}

// KeyValues returns the named provider's keys, or nil. It is for what
// names keys by a salted fingerprint (the memory's key health); never
// print them.
func (c *Config) KeyValues(name string) []string {
	_, st, _ := c.providerKeys(name)
	if st == nil || *st == nil {
		return nil
	}
	return (*st).values
}

// Pool returns a new key pool for the named provider, ordered as its
// key_order says, or nil when the provider is unknown or has no keys. Each
// call returns a new pool; build each backend once and keep it.
func (c *Config) Pool(name string) *provider.Pool {
	_, st, ord := c.providerKeys(name)
	if st == nil || *st == nil || len((*st).values) == 0 {
		return nil
	}
	return provider.NewPool((*st).values, &provider.PoolConfig{Order: provider.Order(ord)})
}

// Configured returns, in registration order ([Providers]), the providers that have at
// least one key.
func (c *Config) Configured() []string {
	var out []string
	for _, n := range c.registry().Names() {
		if c.KeyCount(n) > 0 {
			out = append(out, n)
		}
	}
	return out
}

// Secrets returns every provider key, for scrubbing output as a last line
// of defence. Never print what it returns.
func (c *Config) Secrets() []string {
	var out []string
	for _, n := range c.registry().Names() {
		if _, st, _ := c.providerKeys(n); st != nil && *st != nil {
			out = append(out, (*st).values...)
		}
	}
	return out
}
