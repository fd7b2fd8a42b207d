package hooks

import (
	"context"
	"net/url"

	"github.com/webgate-dev/webgate/webpage"
)

// The page probe moved to package webpage; these names keep the hook
// handlers' code as it was until they read pages through webpage.Reader.
type (
	ProbeConfig = webpage.ProbeConfig
	ProbeResult = webpage.ProbeResult
)

var (
	ErrBlockedAddress = webpage.ErrBlockedAddress
	ErrUnsupportedURL = webpage.ErrUnsupportedURL
)

const (
	DefaultProbeMaxBytes = webpage.DefaultProbeMaxBytes
	DefaultProbeTimeout  = webpage.DefaultProbeTimeout
)

func Probe(ctx context.Context, rawURL string, cfg ProbeConfig) (*ProbeResult, error) {
	return webpage.Probe(ctx, rawURL, cfg)
}

func checkURL(raw string) (*url.URL, error) { return webpage.CheckURL(raw) }
