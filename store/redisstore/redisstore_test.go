//go:build unix

package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/internal/redistest"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/driver"
	"github.com/webgate-dev/webgate/store/redisstore"
	"github.com/webgate-dev/webgate/store/storetest"
	"github.com/webgate-dev/webgate/store/storeurl"
)

func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func open(t testing.TB, cfg redisstore.Config) *redisstore.Store {
	t.Helper()
	s, err := redisstore.Open(ctxFor(t, 5*time.Second), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	var n atomic.Int64
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, now func() time.Time) driver.Store {
			// Each case gets its own namespace on the shared server.
			return open(t, redisstore.Config{URL: srv.URL, Prefix: fmt.Sprintf("t%d:", n.Add(1)), Now: now, IOTimeout: 5 * time.Second})
		},
		ServerClock: true,
	})
}

func TestNamespacesDoNotSeeEachOther(t *testing.T) {
	srv := redistest.Start(t)
	ctx := ctxFor(t, 5*time.Second)
	a := store.New(open(t, redisstore.Config{URL: srv.URL + "?prefix=app-a:"}), nil)
	b := store.New(open(t, redisstore.Config{URL: srv.URL, Prefix: "app-b:"}), nil)
	if err := a.Set(ctx, "k", []byte("a"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, "k"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("b sees a's key: %v", err)
	}
	if n, err := b.Clear(ctx, ""); err != nil || n != 0 {
		t.Fatalf("b's Clear removed %d (%v)", n, err)
	}
	if e, err := a.Get(ctx, "k"); err != nil || string(e.Value) != "a" {
		t.Fatalf("a after b's Clear: %q, %v", e.Value, err)
	}
}

func TestOpenFailsFastWhenTheServerIsDownOrTheURLIsBad(t *testing.T) {
	srv := redistest.Start(t)
	addr := srv.Addr
	srv.Stop()
	for name, url := range map[string]string{
		"down":          "redis://" + addr + "/0",
		"down with TLS": "rediss://" + addr + "/0",
	} {
		start := time.Now()
		_, err := storeurl.Open(ctxFor(t, 2*time.Second), url, nil)
		if !errors.Is(err, store.ErrUnavailable) && !errors.Is(err, store.ErrTimeout) {
			t.Errorf("%s: %v, want ErrUnavailable", name, err)
		}
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("%s: Open took %v", name, d)
		}
	}
	for _, url := range []string{"redis://user:hunter2-secret@" + addr + "/notanumber", "redis://:hunter2-secret@" + addr + "/0?bogus=1", "redis://:hunter2-secret@[::1"} {
		_, err := storeurl.Open(ctxFor(t, time.Second), url, nil)
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("bad URL: %v, want ErrInvalid", err)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error quotes the password: %v", err)
		}
	}
	_, err := storeurl.Open(ctxFor(t, time.Second), "redis://:hunter2-secret@"+addr+"/0", nil)
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("connection error quotes the password, or none: %v", err)
	}
}

func TestStalledServerFailsCallsWithinTheirDeadline(t *testing.T) {
	srv := redistest.Start(t)
	s := store.New(open(t, redisstore.Config{URL: srv.URL}), nil)
	if err := s.Set(ctxFor(t, time.Second), "k", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	srv.Pause()
	defer srv.Resume()
	const deadline = 100 * time.Millisecond
	for op, f := range map[string]func(ctx context.Context) error{
		"get":    func(ctx context.Context) error { _, err := s.Get(ctx, "k"); return err },
		"set":    func(ctx context.Context) error { return s.Set(ctx, "k", []byte("v"), 0) },
		"incr":   func(ctx context.Context) error { _, err := s.Incr(ctx, "c", 1, 0); return err },
		"append": func(ctx context.Context) error { _, err := s.Append(ctx, "l", nil, store.Retention{}); return err },
	} {
		start := time.Now()
		err := f(ctxFor(t, deadline))
		elapsed := time.Since(start)
		if !errors.Is(err, store.ErrTimeout) {
			t.Errorf("%s on a stalled server: %v, want ErrTimeout", op, err)
		}
		if elapsed > deadline+500*time.Millisecond {
			t.Errorf("%s on a stalled server took %v (deadline %v)", op, elapsed, deadline)
		}
	}
	// Without a deadline of its own, a call is bounded by the client's
	// I/O timeout and the store's Timeout.
	start := time.Now()
	if _, err := s.Get(context.Background(), "k"); !store.Failed(err) {
		t.Errorf("get on a stalled server without a deadline: %v", err)
	}
	if d := time.Since(start); d > redisstore.DefaultIOTimeout+500*time.Millisecond {
		t.Errorf("get on a stalled server without a deadline took %v", d)
	}
	srv.Resume()
	deadlineOK := time.Now().Add(3 * time.Second)
	for {
		_, err := s.Get(ctxFor(t, time.Second), "k")
		if err == nil {
			break
		}
		if time.Now().After(deadlineOK) {
			t.Fatalf("the store did not recover after the server resumed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServerStoppedMidRunFailsCallsPromptly(t *testing.T) {
	srv := redistest.Start(t)
	s := store.New(open(t, redisstore.Config{URL: srv.URL}), nil)
	ctx := ctxFor(t, time.Second)
	if _, err := s.Incr(ctx, "c", 1, 0); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	for range 3 {
		start := time.Now()
		_, err := s.Incr(ctxFor(t, time.Second), "c", 1, 0)
		if !store.Failed(err) || !(errors.Is(err, store.ErrUnavailable) || errors.Is(err, store.ErrTimeout)) {
			t.Fatalf("incr on a stopped server: %v, want ErrUnavailable", err)
		}
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Fatalf("incr on a stopped server took %v", d)
		}
	}
}

func BenchmarkStore(b *testing.B) {
	srv := redistest.Start(b)
	var n atomic.Int64
	storetest.Benchmark(b, func(b *testing.B) driver.Store {
		return open(b, redisstore.Config{URL: srv.URL, Prefix: fmt.Sprintf("b%d:", n.Add(1))})
	})
}
