package storetest

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/driver"
)

// Benchmark measures one call of each common operation against the
// backend h describes, on the real clock: Get of a 1 KiB value, Set of
// one, Update of a small record (a health record's read-modify-write),
// Incr of one counter, IncrMany of four (one call's usage) and Append of
// a 512-byte record with retention.
func Benchmark(b *testing.B, open func(b *testing.B) driver.Store) {
	value := make([]byte, 1024)
	record := make([]byte, 512)
	ctx := context.Background()
	run := func(name string, f func(s *store.Store, i int) error) {
		b.Run(name, func(b *testing.B) {
			s := store.New(open(b), nil)
			defer s.Close()
			for i := range 100 {
				if err := s.Set(ctx, "bench/"+strconv.Itoa(i), value, time.Hour); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if err := f(s, i); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	run("Get", func(s *store.Store, i int) error {
		_, err := s.Get(ctx, "bench/"+strconv.Itoa(i%100))
		return err
	})
	run("Set", func(s *store.Store, i int) error {
		return s.Set(ctx, "bench/"+strconv.Itoa(i%100), value, time.Hour)
	})
	run("Update", func(s *store.Store, i int) error {
		_, err := s.Update(ctx, "health/tavily/key", time.Hour, func(cur []byte, found bool) ([]byte, error) {
			return fmt.Appendf(nil, `{"failures":%d,"until":"2026-03-01T12:00:00Z"}`, i), nil
		})
		return err
	})
	run("Incr", func(s *store.Store, i int) error {
		_, err := s.Incr(ctx, "usage/requests", 1, 48*time.Hour)
		return err
	})
	run("IncrMany", func(s *store.Store, i int) error {
		_, err := s.IncrMany(ctx, map[string]int64{
			"usage/d/tavily/requests": 1, "usage/d/tavily/results": 5,
			"usage/d/tavily/latency_ms": 420, "usage/d/tavily/credits": 1,
		}, 48*time.Hour)
		return err
	})
	run("Append", func(s *store.Store, i int) error {
		_, err := s.Append(ctx, "decisions", record, store.Retention{MaxRecords: 1000, MaxAge: 24 * time.Hour})
		return err
	})
}
