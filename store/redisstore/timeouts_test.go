package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/internal/redistest"
)

func TestTimeoutsFollowTheCallersBoundUnlessSet(t *testing.T) {
	srv := redistest.Start(t)
	for _, c := range []struct {
		name       string
		cfg        Config
		dial, read time.Duration
	}{
		{"defaults", Config{URL: srv.URL}, DefaultDialTimeout, DefaultIOTimeout},
		{"a short call bound keeps the defaults", Config{URL: srv.URL, CallTimeout: 50 * time.Millisecond}, DefaultDialTimeout, DefaultIOTimeout},
		{"a long open bound lengthens the dial only", Config{URL: srv.URL, CallTimeout: 50 * time.Millisecond, OpenTimeout: time.Second}, time.Second, DefaultIOTimeout},
		{"a long call bound", Config{URL: srv.URL, CallTimeout: 2 * time.Second}, 2 * time.Second, 2 * time.Second},
		{"the URL's own win", Config{URL: srv.URL + "?dial_timeout=300ms&read_timeout=400ms", CallTimeout: 2 * time.Second}, 300 * time.Millisecond, 400 * time.Millisecond},
		{"the configuration's own win", Config{URL: srv.URL, CallTimeout: 2 * time.Second, DialTimeout: time.Second, IOTimeout: 700 * time.Millisecond}, time.Second, 700 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			s, err := Open(ctx, &c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			o := s.rdb.Options()
			if o.DialTimeout != c.dial || o.ReadTimeout != c.read {
				t.Errorf("dial %v, read %v; want %v, %v", o.DialTimeout, o.ReadTimeout, c.dial, c.read)
			}
		})
	}
}

func TestOpenDialsThePoolsConnectionsUnderItsBound(t *testing.T) {
	// A call that needs a connection of its own would otherwise dial it
	// (and shake hands over TLS) within a call's bound.
	srv := redistest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := Open(ctx, &Config{URL: srv.URL, PoolSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st := s.rdb.PoolStats(); st.TotalConns != 3 || st.IdleConns != 3 {
		t.Errorf("after Open: %d connections, %d idle; want the pool's 3, idle", st.TotalConns, st.IdleConns)
	}
}
