package gate

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestReadPayload_ReadsToEOF(t *testing.T) {
	got, err := ReadPayload(strings.NewReader(`{"a":1}`), 100, time.Minute, time.Minute)
	if err != nil || string(got) != `{"a":1}` {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestReadPayload_GoesOnAfterACompleteObjectWhenStdinStaysOpen(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	go func() { _, _ = w.Write([]byte(`{"hook_event_name":`)); _, _ = w.Write([]byte(`"PreToolUse"}`)) }()
	got, err := ReadPayload(r, 100, time.Minute, 20*time.Millisecond)
	if err != nil || string(got) != `{"hook_event_name":"PreToolUse"}` {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestReadPayload_GivesUpOnAnIncompletePayloadWhenStdinStaysOpen(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	go func() { _, _ = w.Write([]byte(`{"hook_event_name":`)) }()
	_, err := ReadPayload(r, 100, 50*time.Millisecond, 10*time.Millisecond)
	if !errors.Is(err, ErrStdinOpen) || !strings.Contains(err.Error(), "no complete JSON object") {
		t.Fatalf("err = %v, want ErrStdinOpen", err)
	}
	// Nothing at all on an open stdin (a terminal) ends the same way.
	r2, w2 := io.Pipe()
	defer w2.Close()
	if _, err := ReadPayload(r2, 100, 50*time.Millisecond, 10*time.Millisecond); !errors.Is(err, ErrStdinOpen) {
		t.Fatalf("empty open stdin: err = %v", err)
	}
}

func TestReadPayload_RefusesAndDrainsInputOverTheCap(t *testing.T) {
	src := strings.NewReader(`{"q":"` + strings.Repeat("x", 1000) + `"}`)
	_, err := ReadPayload(src, 100, time.Minute, time.Minute)
	if !errors.Is(err, ErrPayloadTooLarge) {
		t.Fatalf("err = %v", err)
	}
	if src.Len() != 0 {
		t.Errorf("%d bytes left unread", src.Len())
	}
}
