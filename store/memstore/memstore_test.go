package memstore_test

import (
	"testing"
	"time"

	"github.com/webgate-dev/webgate/store/driver"
	"github.com/webgate-dev/webgate/store/memstore"
	"github.com/webgate-dev/webgate/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, now func() time.Time) driver.Store {
			return memstore.New(&memstore.Config{Now: now})
		},
	})
}

func BenchmarkStore(b *testing.B) {
	storetest.Benchmark(b, func(b *testing.B) driver.Store { return memstore.New(nil) })
}
