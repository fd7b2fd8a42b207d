package storeurl_test

import (
	"context"
	"fmt"
	"time"

	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// A hook opens the store the user configured, gives it a small budget,
// and carries on without it when it fails.
func ExampleOpen() {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	s, err := storeurl.Open(ctx, "memory:", &store.Options{DefaultPath: "/home/me/.cache/webgate/store.db"})
	if err != nil {
		fmt.Println("no memory this time:", err)
		return
	}
	defer s.Close()
	if err := s.Set(ctx, "session/abc/docs-route", []byte("go.dev"), 30*time.Minute); err != nil {
		fmt.Println(err)
	}
	e, err := s.Get(ctx, "session/abc/docs-route")
	fmt.Println(string(e.Value), err)
	// Output:
	// go.dev <nil>
}
