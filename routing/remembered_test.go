package routing

import (
	"os"
	"testing"
	"time"
)

func TestStateStore_RememberedPeeksWithoutReleasing(t *testing.T) {
	s, c := newStore(t)
	call := Call{Query: "kubectl apply", AllowedDomains: []string{"b.io", "a.io"}}
	if ok, err := s.Remembered("s1", call); ok || err != nil {
		t.Fatalf("before any denial: %v, %v", ok, err)
	}
	if err := s.Remember("s1", call); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(s.Dir)
	same := Call{Query: " kubectl apply ", AllowedDomains: []string{"A.io", "b.io"}}
	for range 2 {
		if ok, err := s.Remembered("s1", same); !ok || err != nil {
			t.Fatalf("remembered call not seen: %v, %v", ok, err)
		}
	}
	if ok, _ := s.Remembered("s2", same); ok {
		t.Error("another session saw the denial")
	}
	after, _ := os.ReadDir(s.Dir)
	if len(after) != len(entries) {
		t.Errorf("Remembered created files: %d before, %d after", len(entries), len(after))
	}
	if ok, _ := s.Release("s1", same); !ok {
		t.Fatal("peeking consumed the denial")
	}
	if ok, _ := s.Remembered("s1", same); ok {
		t.Error("released call still remembered")
	}
	_ = s.Remember("s1", call)
	c.t = c.t.Add(DefaultEscapeWindow + time.Second)
	if ok, _ := s.Remembered("s1", same); ok {
		t.Error("expired denial still remembered")
	}
}

func TestStateStore_RememberedNeedsADirectory(t *testing.T) {
	var s StateStore
	if _, err := s.Remembered("s", Call{Query: "q"}); err == nil {
		t.Fatal("no error without a directory")
	}
}
