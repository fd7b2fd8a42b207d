package store

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/store/driver"
)

// Backend opens the backend of one kind [ParseURL] names ("memory",
// "sqlite" or "redis") at its target, within ctx. [OpenWith] calls it
// with the options it was given, defaults applied; package storeurl
// gives the one that knows webgate's backends.
type Backend func(ctx context.Context, kind, target string, opts *Options) (driver.Store, error)

// OpenWith opens the store rawURL names (see [ParseURL]) with the
// backend that backend opens: "off" is the store that remembers nothing
// (it finds nothing, accepts and drops every write, returns a counter's
// delta as its value and keeps no log records, so that code using it
// behaves as on its first call, without special cases); every other kind
// is backend's. Package storeurl's Open is OpenWith over webgate's
// backends; this package links none of them.
//
// OpenWith honours ctx's deadline (and opts.OpenTimeout when ctx has
// none, [DefaultOpenTimeout] when that is zero): a file that is corrupt
// or locked, or a server that is down or slow, fails promptly with an
// [*Error] wrapping [ErrCorrupt], [ErrBusy], [ErrTimeout] or
// [ErrUnavailable]; a malformed URL fails with [ErrInvalid]. Errors never
// contain a password from the URL, as long as backend's do not.
func OpenWith(ctx context.Context, rawURL string, opts *Options, backend Backend) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if ctx == nil {
		ctx = context.Background()
	}
	o.OpenTimeout = defaults.Positive(o.OpenTimeout, DefaultOpenTimeout)
	o.Timeout = defaults.Positive(o.Timeout, DefaultTimeout)
	ctx, cancel := withTimeout(ctx, o.OpenTimeout)
	defer cancel()

	kind, target, err := ParseURL(rawURL, o.DefaultPath)
	if err != nil {
		return nil, &Error{Op: "open", Driver: kind, Err: err}
	}
	var d driver.Store
	switch {
	case kind == "off":
		d = &off{}
	case backend == nil:
		err = fmt.Errorf("%w: no backend to open %s stores", ErrUnavailable, kind)
	default:
		d, err = backend(ctx, kind, target, &o)
		if err == nil && d == nil {
			err = fmt.Errorf("%w: the %s backend opened nothing", ErrUnavailable, kind)
		}
	}
	if err != nil {
		return nil, &Error{Op: "open", Driver: kind, Err: classify(ctx, err)}
	}
	return New(d, &o), nil
}

// ParseURL returns the backend a store URL names ("off", "memory",
// "sqlite" or "redis") and its target: the SQLite file (defaultPath for
// the URL ""), or the Redis URL itself. A URL [OpenWith] would refuse is an
// error wrapping [ErrInvalid]; kind is still set when the scheme was
// recognised. Frontends use it to show where the store is without opening
// it.
func ParseURL(rawURL, defaultPath string) (kind, target string, err error) {
	switch {
	case rawURL == "":
		if defaultPath == "" {
			return "sqlite", "", fmt.Errorf("%w: no store URL and no default path", ErrInvalid)
		}
		return "sqlite", defaultPath, nil
	case rawURL == "off":
		return "off", "", nil
	case rawURL == "memory:" || rawURL == "memory://":
		return "memory", "", nil
	case filepath.IsAbs(rawURL):
		return "sqlite", rawURL, nil
	}
	scheme, _, ok := strings.Cut(rawURL, ":")
	if !ok {
		return "", "", fmt.Errorf("%w: store URL must be off, memory:, sqlite:///path, redis:// or rediss://", ErrInvalid)
	}
	switch strings.ToLower(scheme) {
	case "redis", "rediss":
		return "redis", rawURL, nil
	case "sqlite":
		u, err := url.Parse(rawURL)
		if err != nil {
			return "sqlite", "", fmt.Errorf("%w: malformed sqlite URL", ErrInvalid)
		}
		p := u.Path
		if runtime.GOOS == "windows" && len(p) > 2 && p[0] == '/' && p[2] == ':' {
			p = p[1:] // sqlite:///C:/path
		}
		switch {
		case u.Host != "" && u.Host != "localhost", u.Opaque != "", !filepath.IsAbs(filepath.FromSlash(p)):
			return "sqlite", "", fmt.Errorf("%w: sqlite URL needs an absolute path: sqlite:///abs/path", ErrInvalid)
		case u.RawQuery != "" || u.Fragment != "":
			return "sqlite", "", fmt.Errorf("%w: sqlite URL takes no options", ErrInvalid)
		}
		return "sqlite", filepath.FromSlash(p), nil
	}
	return "", "", fmt.Errorf("%w: unknown store URL scheme (want off, memory:, sqlite:///path, redis:// or rediss://)", ErrInvalid)
}
