package lazyre_test

import (
	"sync"
	"testing"

	"github.com/webgate-dev/webgate/internal/lazyre"
)

func TestNew_CompilesOnceAndSharesTheResult(t *testing.T) {
	re := lazyre.New(`^a+b$`)
	var wg sync.WaitGroup
	got := make(chan any, 8)
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); got <- re() }()
	}
	wg.Wait()
	close(got)
	first := re()
	for g := range got {
		if g != first {
			t.Fatal("two compilations")
		}
	}
	if !first.MatchString("aab") || first.MatchString("ba") {
		t.Error("wrong expression")
	}
}

func TestNew_PanicsOnFirstUseOfAnInvalidExpression(t *testing.T) {
	re := lazyre.New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	re()
}
