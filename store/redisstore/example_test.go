package redisstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// Several machines share one Redis database; each installation has its
// own key prefix. (This example needs a server, so it is not run.)
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	s, err := storeurl.Open(ctx, "rediss://:password@redis.internal:6380/2?prefix=team-a:", nil)
	if err != nil {
		fmt.Println("carrying on without the store:", store.Failed(err))
		return
	}
	defer s.Close()
	s.Set(ctx, "session/abc/docs-route", []byte("go.dev"), 30*time.Minute)
}
