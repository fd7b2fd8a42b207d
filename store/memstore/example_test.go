package memstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/memstore"
)

// A memory store with a manual clock, as tests use it.
func ExampleNew() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := store.New(memstore.New(&memstore.Config{Now: func() time.Time { return now }}), nil)
	defer s.Close()
	ctx := context.Background()
	s.Set(ctx, "health/exa", []byte("cooldown"), 10*time.Minute)
	_, err := s.Get(ctx, "health/exa")
	fmt.Println(err)
	now = now.Add(11 * time.Minute)
	_, err = s.Get(ctx, "health/exa")
	fmt.Println(err)
	// Output:
	// <nil>
	// store memory get: not found
}
