package defaults

import (
	"testing"
	"time"
)

func TestPositive(t *testing.T) {
	if got := Positive(0, 5); got != 5 {
		t.Errorf("Positive(0, 5) = %d, want 5", got)
	}
	if got := Positive(-1, 5); got != 5 {
		t.Errorf("Positive(-1, 5) = %d, want 5", got)
	}
	if got := Positive(3, 5); got != 3 {
		t.Errorf("Positive(3, 5) = %d, want 3", got)
	}
	if got := Positive(time.Duration(0), time.Second); got != time.Second {
		t.Errorf("Positive(0s, 1s) = %v, want 1s", got)
	}
}

func TestNow(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if got := Now(func() time.Time { return at }); !got.Equal(at) {
		t.Errorf("Now(clock) = %v, want %v", got, at)
	}
	before := time.Now()
	if got := Now(nil); got.Before(before) {
		t.Errorf("Now(nil) = %v, before %v: not the wall clock", got, before)
	}
}
