package providertest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Request is one request the fake provider received.
type Request struct {
	Method string
	Path   string
	// RawQuery is the request's encoded query string, without "?".
	RawQuery string
	Header   http.Header
	Body     []byte
	// Key is the API key the request carried, as the [Wire]'s KeyOf read
	// it; empty when the server was built without KeyOf.
	Key string
}

// Server is a fake provider listening on 127.0.0.1 that records every
// request it receives. Tests of a backend use it for cases the conformance
// suite does not cover (request field mapping, provider-specific quirks).
type Server struct {
	// URL is the server's base URL ("http://127.0.0.1:port"), without a
	// trailing slash.
	URL string

	srv   *httptest.Server
	keyOf func(*http.Request) string
	serve func(i int, req Request, w http.ResponseWriter, r *http.Request)
	quit  chan struct{}

	mu   sync.Mutex
	reqs []Request
}

// NewServer starts a fake provider that answers the i-th request (counting
// from 0) with answer(i, req). keyOf, when non-nil, reads the API key of each
// request into [Request.Key]. The server is closed when the test ends.
func NewServer(t testing.TB, keyOf func(*http.Request) string, answer func(i int, req Request) Answer) *Server {
	t.Helper()
	return newServer(t, keyOf, func(i int, req Request, w http.ResponseWriter, _ *http.Request) {
		writeAnswer(w, answer(i, req))
	})
}

func newServer(t testing.TB, keyOf func(*http.Request) string, serve func(i int, req Request, w http.ResponseWriter, r *http.Request)) *Server {
	t.Helper()
	s := &Server{keyOf: keyOf, serve: serve, quit: make(chan struct{})}
	// httptest listens on 127.0.0.1 only.
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = strings.TrimSuffix(s.srv.URL, "/")
	// Cleanups run last-in first-out: quit releases any handler that hangs
	// before Close waits for the handlers to finish.
	t.Cleanup(s.srv.Close)
	t.Cleanup(func() { close(s.quit) })
	return s
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	req := Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	if s.keyOf != nil {
		req.Key = s.keyOf(r)
	}
	s.mu.Lock()
	i := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	s.serve(i, req, w, r)
}

// Requests returns a copy of the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Count returns how many requests the server has received.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// Last returns the last request received, or a zero Request when there was
// none.
func (s *Server) Last() Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		return Request{}
	}
	return s.reqs[len(s.reqs)-1]
}

// writeAnswer writes a; a zero Status means 200, and a body that looks like
// JSON gets a JSON content type unless the answer sets one.
func writeAnswer(w http.ResponseWriter, a Answer) {
	for name, vs := range a.Header {
		for _, v := range vs {
			w.Header().Add(name, v)
		}
	}
	if w.Header().Get("Content-Type") == "" {
		if b := strings.TrimSpace(a.Body); strings.HasPrefix(b, "{") || strings.HasPrefix(b, "[") {
			w.Header().Set("Content-Type", "application/json")
		} else {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		}
	}
	status := a.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, a.Body)
}
