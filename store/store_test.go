package store_test

import (
	"context"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/driver"
	"github.com/webgate-dev/webgate/store/memstore"
	"github.com/webgate-dev/webgate/store/storeurl"
)

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestOpenChoosesTheBackendByURL(t *testing.T) {
	dir := t.TempDir()
	def := filepath.Join(dir, "default.db")
	for _, c := range []struct {
		url, driver string
	}{
		{"", "sqlite"},
		{"off", "off"},
		{"memory:", "memory"},
		{"memory://", "memory"},
		{"sqlite://" + filepath.Join(dir, "a.db"), "sqlite"},
		{"sqlite://localhost" + filepath.Join(dir, "b.db"), "sqlite"},
		{filepath.Join(dir, "c.db"), "sqlite"},
	} {
		s, err := storeurl.Open(ctxFor(t, 5*time.Second), c.url, &store.Options{DefaultPath: def})
		if err != nil {
			t.Errorf("Open(%q): %v", c.url, err)
			continue
		}
		if s.Driver() != c.driver {
			t.Errorf("Open(%q).Driver() = %q, want %q", c.url, s.Driver(), c.driver)
		}
		if err := s.Set(ctxFor(t, time.Second), "k", []byte("v"), 0); err != nil {
			t.Errorf("Open(%q): Set: %v", c.url, err)
		}
		s.Close()
	}
	for _, url := range []string{
		"sqlite://relative/path.db", "sqlite:relative.db", "sqlite:///" + dir + "/x.db?mode=ro",
		"ftp://host/x", "just-words", "memory:extra", "C:relative",
	} {
		_, err := storeurl.Open(ctxFor(t, time.Second), url, nil)
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("Open(%q): %v, want ErrInvalid", url, err)
		}
	}
	if _, err := storeurl.Open(ctxFor(t, time.Second), "", nil); !errors.Is(err, store.ErrInvalid) {
		t.Errorf(`Open("") without a default path: %v, want ErrInvalid`, err)
	}
}

func TestOffStoreRemembersNothing(t *testing.T) {
	ctx := ctxFor(t, time.Second)
	s, err := storeurl.Open(ctx, "off", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Set(ctx, "k", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "k"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after Set on the off store: %v, want ErrNotFound", err)
	}
	v, err := s.Update(ctx, "k", 0, func(cur []byte, found bool) ([]byte, error) {
		if found {
			t.Error("the off store found a value")
		}
		return []byte("next"), nil
	})
	if err != nil || string(v) != "next" {
		t.Fatalf("Update on the off store: %q, %v", v, err)
	}
	for range 2 {
		if n, err := s.Incr(ctx, "c", 3, 0); err != nil || n != 3 {
			t.Fatalf("Incr on the off store: %d, %v; want 3", n, err)
		}
	}
	if _, err := s.Append(ctx, "log", []byte("r"), store.Retention{}); err != nil {
		t.Fatal(err)
	}
	recs, err := s.List(ctx, "log", store.ListQuery{})
	cs, err2 := s.Counters(ctx, "")
	n, err3 := s.Clear(ctx, "")
	if len(recs) != 0 || len(cs) != 0 || n != 0 || err != nil || err2 != nil || err3 != nil {
		t.Fatalf("the off store kept something: %v %v %d %v %v %v", recs, cs, n, err, err2, err3)
	}
}

func TestNilStoreBehavesAsClosed(t *testing.T) {
	var s *store.Store
	ctx := ctxFor(t, time.Second)
	if _, err := s.Get(ctx, "k"); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Get on a nil store: %v", err)
	}
	if err := s.Set(ctx, "k", nil, 0); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Set on a nil store: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Driver() != "none" {
		t.Fatal(s.Driver())
	}
}

func TestFingerprintIsKeyedStableAndShort(t *testing.T) {
	secret := []byte("tvly-dev-0123456789abcdefABCDEF0123456789")
	a := store.Fingerprint(secret, []byte("salt-1"))
	if a != store.Fingerprint(secret, []byte("salt-1")) {
		t.Fatal("not stable")
	}
	if len(a) != 2*store.FingerprintBytes {
		t.Fatalf("%q is %d characters", a, len(a))
	}
	if _, err := hex.DecodeString(a); err != nil {
		t.Fatalf("%q is not hex", a)
	}
	if a == store.Fingerprint(secret, []byte("salt-2")) || a == store.Fingerprint([]byte("tvly-dev-other"), []byte("salt-1")) {
		t.Fatal("different salt or secret, same fingerprint")
	}
	if strings.Contains(string(secret), a[:8]) {
		t.Fatal("fingerprint overlaps the secret")
	}
	if store.Fingerprint(secret, nil) == "" {
		t.Fatal("empty salt gives no fingerprint")
	}
}

// faulty is a backend whose Get misbehaves as told.
type faulty struct {
	driver.Store
	get func(ctx context.Context) error
}

func (f *faulty) Get(ctx context.Context, key string) (driver.Entry, error) {
	return driver.Entry{}, f.get(ctx)
}

func (f *faulty) Name() string { return "faulty" }

func TestBackendPanicBecomesAnError(t *testing.T) {
	s := store.New(&faulty{Store: memstore.New(nil), get: func(context.Context) error { panic("boom") }}, nil)
	_, err := s.Get(ctxFor(t, time.Second), "k")
	var se *store.Error
	if !errors.Is(err, store.ErrUnavailable) || !errors.As(err, &se) || se.Op != "get" || se.Driver != "faulty" {
		t.Fatalf("panicking backend: %v", err)
	}
	if !strings.Contains(err.Error(), "store faulty get: ") {
		t.Fatalf("message %q", err.Error())
	}
}

func TestUpdateFunctionPanicIsTheCallers(t *testing.T) {
	s := store.New(memstore.New(nil), nil)
	defer func() {
		if r := recover(); r != "caller's bug" {
			t.Fatalf("recovered %v", r)
		}
	}()
	s.Update(ctxFor(t, time.Second), "k", 0, func([]byte, bool) ([]byte, error) { panic("caller's bug") })
	t.Fatal("no panic")
}

func TestUnclassifiedBackendErrorsAreUnavailable(t *testing.T) {
	s := store.New(&faulty{Store: memstore.New(nil), get: func(context.Context) error { return errors.New("disk on fire") }}, nil)
	_, err := s.Get(ctxFor(t, time.Second), "k")
	if !errors.Is(err, store.ErrUnavailable) || !store.Failed(err) {
		t.Fatalf("unclassified error: %v", err)
	}
}

func TestTimeoutBoundsCallsWithoutADeadline(t *testing.T) {
	hang := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	s := store.New(&faulty{Store: memstore.New(nil), get: hang}, &store.Options{Timeout: 50 * time.Millisecond})
	start := time.Now()
	_, err := s.Get(context.Background(), "k")
	if d := time.Since(start); d < 40*time.Millisecond || d > time.Second {
		t.Fatalf("call without a deadline returned after %v, want about 50ms", d)
	}
	if !errors.Is(err, store.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hanging backend: %v, want ErrTimeout", err)
	}
	// A caller's earlier deadline wins.
	start = time.Now()
	s = store.New(&faulty{Store: memstore.New(nil), get: hang}, &store.Options{Timeout: time.Hour})
	_, err = s.Get(ctxFor(t, 30*time.Millisecond), "k")
	if d := time.Since(start); d > time.Second || !errors.Is(err, store.ErrTimeout) {
		t.Fatalf("caller's deadline: %v after %v", err, time.Since(start))
	}
}

func TestFollowEndsOnAClosedStore(t *testing.T) {
	s := store.New(memstore.New(nil), nil)
	s.Close()
	var errs []error
	for _, err := range s.Follow(ctxFor(t, 5*time.Second), "log", 0, time.Millisecond) {
		errs = append(errs, err)
	}
	if len(errs) != 1 || !errors.Is(errs[0], store.ErrClosed) {
		t.Fatalf("Follow on a closed store yielded %v", errs)
	}
}

func TestNewWithoutABackendIsClosed(t *testing.T) {
	s := store.New(nil, nil)
	if _, err := s.Incr(ctxFor(t, time.Second), "c", 1, 0); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Incr on a store without a backend: %v", err)
	}
}
