package sqlitestore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/sqlitestore"
)

// A hook process opens the shared file, counts one request, and fails
// open if the store does not answer within its budget.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "webgate")
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	d, err := sqlitestore.Open(ctx, &sqlitestore.Config{Path: filepath.Join(dir, "store.db")})
	if err != nil {
		fmt.Println("carrying on without the store:", err)
		return
	}
	s := store.New(d, nil)
	defer s.Close()
	n, err := s.Incr(ctx, "usage/2026-03-01/tavily/requests", 1, 40*24*time.Hour)
	fmt.Println(n, err)
	// Output:
	// 1 <nil>
}
