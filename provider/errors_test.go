package provider_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

func TestKindOf(t *testing.T) {
	timeout := &url.Error{Op: "Post", URL: "https://api.example/search", Err: &net.DNSError{Err: "i/o timeout", IsTimeout: true}}
	for _, tc := range []struct {
		name string
		err  error
		want provider.Kind
	}{
		{"nil", nil, ""},
		{"a provider error", &provider.Error{Kind: provider.KindQuota}, provider.KindQuota},
		{"a wrapped provider error", fmt.Errorf("policy: %w", &provider.Error{Kind: provider.KindAuth}), provider.KindAuth},
		{"a joined provider error", errors.Join(errors.New("x"), &provider.Error{Kind: provider.KindUnsupported}), provider.KindUnsupported},
		{"a provider error without a kind falls back to its cause", &provider.Error{Err: context.Canceled}, provider.KindCanceled},
		{"context canceled", context.Canceled, provider.KindCanceled},
		{"wrapped context canceled", fmt.Errorf("search: %w", context.Canceled), provider.KindCanceled},
		{"deadline exceeded", context.DeadlineExceeded, provider.KindTransient},
		{"a network timeout", timeout, provider.KindTransient},
		{"a refused connection", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, provider.KindTransient},
		{"a bare ECONNRESET", syscall.ECONNRESET, provider.KindTransient},
		{"an unexpected EOF", io.ErrUnexpectedEOF, provider.KindTransient},
		{"an EOF from a closed connection", fmt.Errorf("reading: %w", io.EOF), provider.KindTransient},
		{"a request error from net/http", &url.Error{Op: "Post", URL: "https://api.example/search", Err: errors.New("http2: server sent GOAWAY")}, provider.KindTransient},
		{"a certificate the client does not trust", &tls.CertificateVerificationError{Err: errors.New("x509: unknown authority")}, provider.KindTransient},
		{"an untyped error is never classified by its words", errors.New("connection reset; timeout; eof"), provider.KindUnknown},
		{"anything else", errors.New("boom"), provider.KindUnknown},
	} {
		if got := provider.KindOf(tc.err); got != tc.want {
			t.Errorf("%s: KindOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestKind_MapsEveryKindToItsClass(t *testing.T) {
	want := map[provider.Kind]provider.Class{
		provider.KindAuth:        provider.ClassAuthFailed,
		provider.KindQuota:       provider.ClassCreditOrQuota,
		provider.KindRateLimited: provider.ClassRateLimited,
		provider.KindTransient:   provider.ClassTransientFailed,
		provider.KindBadRequest:  provider.ClassUnknown,
		provider.KindUnsupported: provider.ClassUnknown,
		provider.KindCanceled:    provider.ClassUnknown,
		provider.KindUnknown:     provider.ClassUnknown,
	}
	if len(provider.Kinds) != len(want) {
		t.Fatalf("Kinds has %d kinds, the table %d", len(provider.Kinds), len(want))
	}
	seen := map[provider.Kind]bool{}
	for _, k := range provider.Kinds {
		if seen[k] {
			t.Errorf("Kinds lists %q twice", k)
		}
		seen[k] = true
		c, ok := want[k]
		if !ok {
			t.Errorf("kind %q has no expected class", k)
			continue
		}
		if got := k.Class(); got != c {
			t.Errorf("%q.Class() = %q, want %q", k, got, c)
		}
		if got := provider.ClassOf(&provider.Error{Kind: k}); got != c {
			t.Errorf("ClassOf(error of kind %q) = %q, want %q", k, got, c)
		}
	}
	if got := provider.Kind("made-up").Class(); got != provider.ClassUnknown {
		t.Errorf("an unknown kind maps to %q, want unknown", got)
	}
}

func TestKind_RetryableAndRotatable(t *testing.T) {
	for _, k := range provider.Kinds {
		retry := k == provider.KindTransient || k == provider.KindRateLimited
		rotate := k == provider.KindAuth || k == provider.KindQuota || k == provider.KindRateLimited
		if k.Retryable() != retry || k.Rotatable() != rotate {
			t.Errorf("%q: Retryable %v Rotatable %v, want %v %v", k, k.Retryable(), k.Rotatable(), retry, rotate)
		}
	}
}

func TestError_MessageNamesProviderOpKindStatusAndRequest(t *testing.T) {
	cause := errors.New("dial tcp: refused")
	for _, tc := range []struct {
		err  *provider.Error
		want string
	}{
		{&provider.Error{Provider: "exa", Op: "search", Kind: provider.KindQuota, Status: 402, Tag: "NO_MORE_CREDITS", Message: "top up", RequestID: "r1"},
			"exa search: quota (HTTP 402 NO_MORE_CREDITS): top up [request r1]"},
		{&provider.Error{Provider: "tavily", Kind: provider.KindTransient, Err: cause}, "tavily: transient: dial tcp: refused"},
		{&provider.Error{Provider: "tavily", Op: "extract", Kind: provider.KindUnsupported}, "tavily extract: unsupported"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	e := &provider.Error{Kind: provider.KindTransient, Err: cause}
	if !errors.Is(e, cause) || errors.Unwrap(e) != cause {
		t.Error("Error does not unwrap to its cause")
	}
}

func TestNameOf(t *testing.T) {
	if got := provider.NameOf(named("exa")); got != "exa" {
		t.Errorf("NameOf = %q", got)
	}
	if got := provider.NameOf(42); got != "unnamed" {
		t.Errorf("NameOf(42) = %q, want unnamed", got)
	}
}

type named string

func (n named) Name() string { return string(n) }

func TestTimeRange_Duration(t *testing.T) {
	for r, want := range map[provider.TimeRange]time.Duration{
		provider.AnyTime: 0, provider.PastDay: 24 * time.Hour, provider.PastWeek: 7 * 24 * time.Hour,
		provider.PastMonth: 30 * 24 * time.Hour, provider.PastYear: 365 * 24 * time.Hour, "fortnight": 0,
	} {
		if got := r.Duration(); got != want {
			t.Errorf("%q.Duration() = %v, want %v", r, got, want)
		}
	}
}

func TestCapRunes_CutsAtCharactersNotBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 0, "hello"}, {"hello", 3, "hel"}, {"héllo", 2, "hé"}, {"日本語", 2, "日本"}, {"ab", 5, "ab"},
	} {
		if got := provider.CapRunes(c.in, c.n); got != c.want {
			t.Errorf("CapRunes(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
