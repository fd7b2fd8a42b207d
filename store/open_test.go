package store_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// slowRedis is a loopback server speaking RESP that answers PING after
// delay with +PONG, refuses HELLO as a server of protocol 2 does, and
// never answers anything else: opening is slow, calls hang.
func slowRedis(t *testing.T, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				go func() { <-done; c.Close() }()
				r := bufio.NewReader(c)
				for {
					cmd, err := readCommand(r)
					if err != nil {
						return
					}
					switch strings.ToUpper(cmd) {
					case "PING":
						time.Sleep(delay)
						_, _ = c.Write([]byte("+PONG\r\n"))
					case "HELLO":
						_, _ = c.Write([]byte("-ERR unknown command 'HELLO'\r\n"))
					}
				}
			}()
		}
	}()
	return "redis://" + ln.Addr().String() + "/0"
}

// readCommand reads one RESP array of bulk strings and returns its first
// element, the command's name.
func readCommand(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "*") {
		return "", errors.New("not a RESP array")
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		return "", err
	}
	var name string
	for i := range n {
		if _, err := r.ReadString('\n'); err != nil { // $len
			return "", err
		}
		v, err := r.ReadString('\n')
		if err != nil {
			return "", err
		}
		if i == 0 {
			name = strings.TrimSpace(v)
		}
	}
	return name, nil
}

func TestOpenHasItsOwnBoundApartFromTheCalls(t *testing.T) {
	url := slowRedis(t, 200*time.Millisecond)
	// Opening takes longer than a call may (Timeout) but less than the
	// open bound: the store is opened, and its calls keep their bound.
	s, err := storeurl.Open(context.Background(), url, &store.Options{Timeout: 50 * time.Millisecond, OpenTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("a store that opens within store.open_timeout: %v", err)
	}
	defer s.Close()
	start := time.Now()
	_, err = s.Get(context.Background(), "k")
	if !errors.Is(err, store.ErrTimeout) {
		t.Fatalf("a call the server never answers: %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("a call bounded by 50ms returned after %v", d)
	}

	// An open bound shorter than the opening fails it, as a timeout.
	_, err = storeurl.Open(context.Background(), url, &store.Options{Timeout: time.Minute, OpenTimeout: 20 * time.Millisecond})
	if !errors.Is(err, store.ErrTimeout) {
		t.Fatalf("opening past store.open_timeout: %v, want ErrTimeout", err)
	}
}

// TestOpenWith_NoBackend: package store links no backend; asked to open
// one without being given a way to, it fails as unavailable, and "off"
// needs none.
func TestOpenWith_NoBackend(t *testing.T) {
	ctx := context.Background()
	if _, err := store.OpenWith(ctx, "memory:", nil, nil); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("OpenWith(memory:, no backend) = %v, want ErrUnavailable", err)
	}
	s, err := store.OpenWith(ctx, "off", nil, nil)
	if err != nil {
		t.Fatalf("OpenWith(off) = %v", err)
	}
	defer s.Close()
	if _, err := s.Get(ctx, "k"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("off store Get = %v, want ErrNotFound", err)
	}
}
