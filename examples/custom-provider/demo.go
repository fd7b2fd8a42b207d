package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// demoKey is the key the built-in demo service accepts.
const demoKey = "demo-key"

// demoDocs is what the demo service knows.
var demoDocs = []struct{ title, url, summary string }{
	{"Search policies", "https://docs.internal.example/webgate/policy",
		"Parallel asks every provider at once and merges the lists; Fallback tries them in order until one answers."},
	{"Provider error kinds", "https://docs.internal.example/webgate/errors",
		"Every backend failure has one kind: auth, quota, rate-limited, transient, bad-request, unsupported, canceled or unknown."},
	{"Key pools", "https://docs.internal.example/webgate/keys",
		"A key pool hands out API keys per request and rotates to the next key on auth, quota and rate-limit failures."},
	{"Context cancellation", "https://docs.internal.example/go/context",
		"Every search honours its context: cancellation and deadlines end it promptly."},
	{"Page classification", "https://docs.internal.example/webgate/classify",
		"The classifier decides from the initial HTML whether a page is fetch-readable, template-heavy or needs a browser."},
}

// startDemo serves the docs API of [DocsSearch] on 127.0.0.1 from demoDocs.
// With fail set to an HTTP status it answers every search with that status
// and the error code the service uses for it, to show how failures are
// classified. It returns the base URL and a function that stops the server.
func startDemo(fail int) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "demo-"+strconv.FormatInt(time.Now().UnixNano(), 36))
		if r.Header.Get("Authorization") != "Bearer "+demoKey {
			demoError(w, http.StatusUnauthorized)
			return
		}
		if fail != 0 {
			demoError(w, fail)
			return
		}
		words := strings.Fields(strings.ToLower(r.URL.Query().Get("q")))
		if len(words) == 0 {
			demoError(w, http.StatusBadRequest)
			return
		}
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		type hit struct {
			Title   string  `json:"title"`
			URL     string  `json:"url"`
			Summary string  `json:"summary"`
			Score   float64 `json:"score"`
		}
		hits := []hit{}
		for _, d := range demoDocs {
			text := strings.ToLower(d.title + " " + d.summary)
			n := 0
			for _, wd := range words {
				if strings.Contains(text, wd) {
					n++
				}
			}
			if n > 0 && (limit <= 0 || len(hits) < limit) {
				hits = append(hits, hit{d.title, d.url, d.summary, float64(n) / float64(len(words))})
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"hits": hits})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = ln.Close()
		}
	}()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
	return "http://" + ln.Addr().String(), stop, nil
}

// demoError writes the service's error body for status.
func demoError(w http.ResponseWriter, status int) {
	code := map[int]string{
		http.StatusBadRequest:          "bad_query",
		http.StatusUnauthorized:        "invalid_key",
		http.StatusPaymentRequired:     "quota_exceeded",
		http.StatusForbidden:           "quota_exceeded", // the service's way of saying the plan ran out
		http.StatusTooManyRequests:     "rate_limited",
		http.StatusServiceUnavailable:  "index_unavailable",
		http.StatusInternalServerError: "internal",
	}[status]
	if code == "" {
		code = "error"
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": http.StatusText(status)}})
}
