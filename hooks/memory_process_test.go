package hooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider/providertest"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// The tests below run the built hooks as separate processes over one
// store, as an agent's calls do, and check what the memory changes between
// them: cached answers, parked keys, cool-downs, budgets, a store that is
// broken or gone, and the decision log.

// goDomains are the allowed domains of claude-websearch-pre.json.
var goDomains = []string{"go.dev", "pkg.go.dev"}

// saysCached reports whether the deny reason of r says its results came
// from the cache.
func saysCached(t *testing.T, r result) bool {
	t.Helper()
	o := decode(t, r)
	if o.HookSpecificOutput == nil {
		t.Fatalf("no hookSpecificOutput: %s", r.stdout)
	}
	return strings.Contains(o.HookSpecificOutput.PermissionDecisionReason, ", cached ")
}

// decisions reads the decision log of the SQLite store in state, oldest
// first.
func decisions(t *testing.T, state string) []memory.Decision {
	t.Helper()
	ctx := context.Background()
	st, err := storeurl.Open(ctx, filepath.Join(state, config.StoreFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ds, err := memory.New(&memory.Options{Store: st}).Decisions(ctx, 0, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// tavilyBody decodes the domain filters of a Tavily /search request.
func tavilyBody(t *testing.T, req providertest.Request) (include, exclude []string) {
	t.Helper()
	var b struct {
		Include []string `json:"include_domains"`
		Exclude []string `json:"exclude_domains"`
	}
	if err := json.Unmarshal(req.Body, &b); err != nil {
		t.Fatalf("request body %s: %v", req.Body, err)
	}
	return b.Include, b.Exclude
}

func TestProcessMemory_SameSearchTwiceAsksTheProviderOnce(t *testing.T) {
	f := newTavilyFake(t)
	env := memoryEnv(t, t.TempDir(), f, tavilyKey, roomyStore)

	r := search(t, env, "go context cancellation", goDomains, nil)
	wantDeny(t, r, "PreToolUse", "via webgate (parallel(tavily))", "Tavily: context package")
	if saysCached(t, r) || f.Count() != 1 || r.stderr != "" {
		t.Fatalf("first search: cached=%v, %d provider requests, stderr %q; want a fresh answer, 1 request and no stderr", saysCached(t, r), f.Count(), r.stderr)
	}

	r = search(t, env, "go context cancellation", goDomains, nil)
	o := wantDeny(t, r, "PreToolUse", `query "go context cancellation"`, "via webgate (parallel(tavily), cached less than a minute ago)",
		"Tavily: context package", "https://pkg.go.dev/context", "Tavily: Go blog", "https://go.dev/blog/context")
	if want := "webgate: WebSearch answered with 2 result(s) via parallel(tavily), cached less than a minute ago"; o.SystemMessage != want {
		t.Errorf("systemMessage = %q, want %q", o.SystemMessage, want)
	}
	if f.Count() != 1 {
		t.Fatalf("the same search asked the provider again: %d requests, want 1", f.Count())
	}
	if r.stderr != "" {
		t.Errorf("a cache hit wrote to stderr: %q", r.stderr)
	}

	// The same question in other case and spacing, with its domains in
	// another order and case, is the same entry.
	r = search(t, env, "Go  Context CANCELLATION", []string{"PKG.go.dev", "go.dev"}, nil)
	if !saysCached(t, r) || f.Count() != 1 {
		t.Errorf("reworded search: cached=%v, %d requests, want a cache hit and still 1", saysCached(t, r), f.Count())
	}

	// Other domain filters are another entry: the provider is asked with
	// the new filters, and the answer is fresh.
	r = search(t, env, "go context cancellation", []string{"go.dev"}, nil)
	wantDeny(t, r, "PreToolUse", "Tavily: Go blog")
	if saysCached(t, r) || f.Count() != 2 {
		t.Fatalf("narrower allowed_domains: cached=%v, %d requests, want a fresh answer and 2", saysCached(t, r), f.Count())
	}
	if inc, _ := tavilyBody(t, f.Last()); !slices.Equal(inc, []string{"go.dev"}) {
		t.Errorf("include_domains = %q, want [go.dev]", inc)
	}
	r = search(t, env, "go context cancellation", nil, []string{"pkg.go.dev"})
	if saysCached(t, r) || f.Count() != 3 {
		t.Fatalf("blocked_domains: cached=%v, %d requests, want a fresh answer and 3", saysCached(t, r), f.Count())
	}
	if _, exc := tavilyBody(t, f.Last()); !slices.Contains(exc, "pkg.go.dev") {
		t.Errorf("exclude_domains = %q, want pkg.go.dev among them", exc)
	}
	if o := decode(t, r); strings.Contains(o.HookSpecificOutput.PermissionDecisionReason, "https://pkg.go.dev/") {
		t.Errorf("a result from a blocked domain was shown:\n%s", o.HookSpecificOutput.PermissionDecisionReason)
	}
	// Each of them is now cached under its own filters.
	r = search(t, env, "go context cancellation", []string{"go.dev"}, nil)
	if !saysCached(t, r) || f.Count() != 3 {
		t.Errorf("narrower allowed_domains again: cached=%v, %d requests, want a cache hit and still 3", saysCached(t, r), f.Count())
	}
	r = search(t, env, "go context cancellation", nil, []string{"pkg.go.dev"})
	if !saysCached(t, r) || f.Count() != 3 {
		t.Errorf("blocked_domains again: cached=%v, %d requests, want a cache hit and still 3", saysCached(t, r), f.Count())
	}
	if o := decode(t, r); strings.Contains(o.HookSpecificOutput.PermissionDecisionReason, "https://pkg.go.dev/") {
		t.Errorf("a cached answer showed a result from a blocked domain:\n%s", o.HookSpecificOutput.PermissionDecisionReason)
	}
}

func TestProcessMemory_RevokedKeyIsTriedOnceAcrossProcesses(t *testing.T) {
	f := newTavilyFake(t)
	refuse := tavilyStatus(http.StatusUnauthorized, "")
	f.answerWith(func(req providertest.Request) providertest.Answer {
		if req.Key == revokedKey {
			return refuse(req)
		}
		return providertest.Answer{Body: tavilyAnswer}
	})
	// Round-robin starts every new process with the first key, so without
	// the memory each process would try the revoked key first.
	env := memoryEnv(t, t.TempDir(), f, revokedKey+"|"+workingKey, "WEBGATE_PROVIDERS_TAVILY_KEY_ORDER=round-robin", roomyStore)
	for i := range 4 {
		// A new query each time, so that the cache does not answer.
		r := search(t, env, fmt.Sprintf("go context cancellation %d", i), goDomains, nil)
		wantDeny(t, r, "PreToolUse", "Tavily: context package")
		if n := f.CountKey(revokedKey); n != 1 {
			t.Fatalf("after %d process(es) the revoked key was sent %d times, want 1", i+1, n)
		}
		if n := f.CountKey(workingKey); n != i+1 {
			t.Fatalf("after %d process(es) the working key was sent %d times, want %d", i+1, n, i+1)
		}
	}
	if f.Count() != 5 {
		t.Errorf("%d provider requests, want 5", f.Count())
	}
}

func TestProcessMemory_RateLimitedProviderIsSkippedUntilRetryAfter(t *testing.T) {
	tests := []struct {
		name string
		// start returns the fake's request count, the environment, and a
		// function switching the fake from 429 to a normal answer.
		start func(t *testing.T, state string) (count func() int, env []string, heal func())
	}{
		{"tavily", func(t *testing.T, state string) (func() int, []string, func()) {
			f := newTavilyFake(t)
			f.answerWith(tavilyStatus(http.StatusTooManyRequests, "2"))
			// One attempt per call: the cool-down between processes is
			// what is tested, not the client's own wait for Retry-After.
			env := memoryEnv(t, state, f, tavilyKey, "WEBGATE_PROVIDERS_TAVILY_HTTP_MAX_ATTEMPTS=1", roomyStore)
			return f.Count, env, func() {
				f.answerWith(func(providertest.Request) providertest.Answer { return providertest.Answer{Body: tavilyAnswer} })
			}
		}},
		// A keyless provider cools down as a whole, not key by key.
		{"searxng", func(t *testing.T, state string) (func() int, []string, func()) {
			limited := make(chan bool, 1)
			limited <- true
			sx := providertest.NewServer(t, nil, func(int, providertest.Request) providertest.Answer {
				l := <-limited
				limited <- l
				if l {
					return providertest.Answer{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"2"}}, Body: "Too Many Requests"}
				}
				return providertest.Answer{Body: searxngAnswer}
			})
			env := memoryEnv(t, state, nil, "", "SEARXNG_URL="+sx.URL, "WEBGATE_PROVIDERS_SEARXNG_HTTP_MAX_ATTEMPTS=1", roomyStore)
			return sx.Count, env, func() { <-limited; limited <- false }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			state := t.TempDir()
			count, env, heal := tt.start(t, state)
			// The 429 arrives between before and limitedAt: the earlier
			// bound tells whether the cool-down certainly still held when
			// the second process decided, the later one when it certainly
			// ended.
			before := time.Now()
			r := search(t, env, "go context cancellation", goDomains, nil)
			wantStepAside(t, r, "every search provider failed: "+tt.name+" (rate-limited)")
			limitedAt := time.Now()
			if count() != 1 {
				t.Fatalf("%d requests, want 1", count())
			}
			heal()

			r = search(t, env, "go context cancellation", goDomains, nil)
			if since := time.Since(before); since < 1500*time.Millisecond {
				wantStepAside(t, r, "every search provider is skipped for now: "+tt.name+" (skipped until ")
				wantStepAside(t, r, "(rate-limited)")
				if count() != 1 {
					t.Errorf("the provider was asked %d times within its Retry-After, want 1", count())
				}
				if ds := decisions(t, state); len(ds) != 2 || !slices.Equal(ds[1].Providers, []memory.Outcome{{Provider: tt.name, Outcome: "skipped (rate-limited)"}}) {
					t.Errorf("decisions = %+v, want the second to say the provider was skipped", ds)
				}
			} else {
				t.Logf("the second process ended %v after the first began, too late to check the cool-down", since)
			}

			time.Sleep(time.Until(limitedAt.Add(2*time.Second + 100*time.Millisecond)))
			r = search(t, env, "go context cancellation", goDomains, nil)
			wantDeny(t, r, "PreToolUse", "context package")
			if count() != 2 {
				t.Errorf("after its Retry-After the provider was asked %d times in all, want 2", count())
			}
		})
	}
}

func TestProcessMemory_MonthlyBudgetWarnsAt80PercentAndThenSkipsTheProvider(t *testing.T) {
	f := newTavilyFake(t)
	state := t.TempDir()
	env := memoryEnv(t, state, f, tavilyKey, "WEBGATE_PROVIDERS_TAVILY_BUDGET_MONTHLY=5", roomyStore)
	const warning = "tavily has used 4 of its monthly budget of 5 requests (80 %)"
	for i := 1; i <= 5; i++ {
		r := search(t, env, fmt.Sprintf("go context cancellation %d", i), nil, nil)
		o := wantDeny(t, r, "PreToolUse", "Tavily: context package")
		if got := strings.Contains(o.SystemMessage, warning); got != (i == 4) {
			t.Errorf("call %d: systemMessage %q; want the 80 %% warning only on call 4", i, o.SystemMessage)
		}
		if got := strings.Contains(r.stderr, warning); got != (i == 4) {
			t.Errorf("call %d: stderr %q; want the 80 %% warning only on call 4", i, r.stderr)
		}
		if i == 4 && len(stderrLines(r)) != 1 {
			t.Errorf("call 4: stderr has %d lines, want the warning alone:\n%s", len(stderrLines(r)), r.stderr)
		}
		if i == 5 && !strings.Contains(o.SystemMessage, "tavily reached its monthly budget of 5 requests") {
			t.Errorf("call 5: systemMessage %q, want the notice that the budget is spent", o.SystemMessage)
		}
	}
	if f.Count() != 5 {
		t.Fatalf("%d requests, want 5", f.Count())
	}

	r := search(t, env, "go context cancellation 6", nil, nil)
	wantStepAside(t, r, "every search provider is skipped for now: tavily (skipped: monthly budget of 5 requests reached (5 used))")
	if f.Count() != 5 {
		t.Errorf("the provider was asked past its budget: %d requests, want 5", f.Count())
	}
	if ds := decisions(t, state); len(ds) != 6 || !slices.Equal(ds[5].Providers, []memory.Outcome{{Provider: "tavily", Outcome: "skipped (quota)"}}) {
		t.Errorf("decisions = %+v, want the sixth to say tavily was skipped", ds)
	}

	// With another provider, that one answers alone.
	exa := newProviderFake(t, map[string]string{"exa": "ok"})
	r = search(t, append(env, "EXA_API_KEY="+exaKey, "EXA_BASE_URL="+exa.URL+"/exa"), "go context cancellation 7", nil, nil)
	wantDeny(t, r, "PreToolUse", "Exa: contexts")
	if f.Count() != 5 || exa.Hits("exa") != 1 {
		t.Errorf("tavily asked %d times (want 5), exa %d times (want 1)", f.Count(), exa.Hits("exa"))
	}
}

func TestProcessMemory_CorruptStoreFailsOpenWithinMilliseconds(t *testing.T) {
	f := newTavilyFake(t)
	garbage := bytes.Repeat([]byte("\x00\xffnot a database\x13\x37"), 512)
	corrupt := func(t *testing.T, content []byte) []string {
		state := t.TempDir()
		if err := os.WriteFile(filepath.Join(state, config.StoreFile), content, 0o600); err != nil {
			t.Fatal(err)
		}
		return memoryEnv(t, state, f, tavilyKey)
	}
	for name, content := range map[string][]byte{
		"garbage":                   garbage,
		"SQLite header and garbage": append([]byte("SQLite format 3\x00"), garbage...),
	} {
		t.Run(name, func(t *testing.T) {
			env := corrupt(t, content)
			before := f.Count()
			for range 2 {
				r := search(t, env, "go context cancellation", goDomains, nil)
				wantDeny(t, r, "PreToolUse", "Tavily: context package")
				if lines := stderrLines(r); len(lines) != 1 || !strings.Contains(lines[0], "store") {
					t.Errorf("stderr = %q, want one line about the store", r.stderr)
				}
			}
			if n := f.Count() - before; n != 2 {
				t.Errorf("%d provider requests for 2 calls, want 2 (no cache without a store)", n)
			}
		})
	}

	// Whole-process time with the corrupt store against the store off,
	// interleaved so that both see the same load.
	corruptEnv := corrupt(t, garbage)
	offEnv := memoryEnv(t, t.TempDir(), f, tavilyKey, "WEBGATE_STORE=off")
	var withCorrupt, withOff []time.Duration
	for range 10 {
		withCorrupt = append(withCorrupt, search(t, corruptEnv, "go context cancellation", goDomains, nil).elapsed)
		withOff = append(withOff, search(t, offEnv, "go context cancellation", goDomains, nil).elapsed)
	}
	mc, mo := median(withCorrupt), median(withOff)
	t.Logf("median whole-process time: corrupt store %v, store off %v (difference %v)", mc, mo, mc-mo)
	// The target is 50 ms; the bound is generous for a loaded machine.
	if mc > mo+150*time.Millisecond {
		t.Errorf("median with a corrupt store %v, with the store off %v: more than 150ms apart", mc, mo)
	}
}

func TestProcessMemory_RedisStoreIsSharedAndFailsOpenWhenItGoes(t *testing.T) {
	rs := startRedis(t)
	f := newTavilyFake(t)
	// Two machines, as it were: state directories (and salts) of their own,
	// one Redis.
	state2 := t.TempDir()
	env1 := memoryEnv(t, t.TempDir(), f, tavilyKey, "WEBGATE_STORE="+rs.URL, roomyStore)
	env2 := memoryEnv(t, state2, f, tavilyKey, "WEBGATE_STORE="+rs.URL, roomyStore)

	r := search(t, env1, "go context cancellation", goDomains, nil)
	wantDeny(t, r, "PreToolUse", "Tavily: context package")
	if saysCached(t, r) || f.Count() != 1 || r.stderr != "" {
		t.Fatalf("first call: cached=%v, %d requests, stderr %q", saysCached(t, r), f.Count(), r.stderr)
	}
	r = search(t, env2, "go context cancellation", goDomains, nil)
	wantDeny(t, r, "PreToolUse", "cached less than a minute ago", "Tavily: context package")
	if f.Count() != 1 || r.stderr != "" {
		t.Fatalf("second call: %d requests (want 1), stderr %q", f.Count(), r.stderr)
	}

	// From here on the store gets its default bound.
	rs.Stop()
	r = search(t, memoryEnv(t, state2, f, tavilyKey, "WEBGATE_STORE="+rs.URL), "go context cancellation", goDomains, nil)
	wantDeny(t, r, "PreToolUse", "Tavily: context package")
	if saysCached(t, r) || f.Count() != 2 {
		t.Errorf("Redis gone: cached=%v, %d requests, want a fresh answer and 2", saysCached(t, r), f.Count())
	}
	if lines := stderrLines(r); len(lines) != 1 || !strings.Contains(lines[0], "store") {
		t.Errorf("Redis gone: stderr = %q, want one line about the store", r.stderr)
	}
	if r.elapsed > 3*time.Second {
		t.Errorf("Redis gone: the hook took %v", r.elapsed)
	}
	t.Logf("Redis gone: the hook took %v", r.elapsed)

	// A server that accepts and never answers costs the store's timeout,
	// not the hook's budget.
	hung := memoryEnv(t, t.TempDir(), f, tavilyKey, "WEBGATE_STORE=redis://"+silentServer(t)+"/0")
	r = search(t, hung, "go context cancellation", goDomains, nil)
	wantDeny(t, r, "PreToolUse", "Tavily: context package")
	if lines := stderrLines(r); len(lines) != 1 || !strings.Contains(lines[0], "store") {
		t.Errorf("Redis hung: stderr = %q, want one line about the store", r.stderr)
	}
	if r.elapsed > 3*time.Second {
		t.Errorf("Redis hung: the hook took %v", r.elapsed)
	}
	t.Logf("Redis hung: the hook took %v", r.elapsed)
}

func TestProcessMemory_DecisionLogRedactsSecretsAndNeverKeepsTheKey(t *testing.T) {
	f := newTavilyFake(t)
	state := t.TempDir()
	env := memoryEnv(t, state, f, tavilyKey, roomyStore)
	secret := "tvly-" + "Q7mX2pL9vR4tK8wN3bY6cF1hJ5sD0gA2"
	search(t, env, "go context cancellation", goDomains, nil)
	search(t, env, "go context cancellation", goDomains, nil)
	search(t, env, "why does "+secret+" get a 401", nil, nil)
	if f.Count() != 2 {
		t.Fatalf("%d requests, want 2", f.Count())
	}

	ds := decisions(t, state)
	if len(ds) != 3 {
		t.Fatalf("%d decisions, want 3: %+v", len(ds), ds)
	}
	for i, d := range ds {
		if d.Tool != "WebSearch" || d.Event != "PreToolUse" || d.Decision != "deny" || d.Session != "5e7d1c2a-0000-4b4b-8c8c-000000000007" || d.Runtime == "" || d.Latency <= 0 {
			t.Errorf("decision %d = %+v", i, d)
		}
	}
	if d := ds[0]; d.Query != "go context cancellation" || d.Cached || !slices.Equal(d.Providers, []memory.Outcome{{Provider: "tavily", Outcome: "ok"}}) {
		t.Errorf("first decision = %+v, want the query in full, fresh, tavily ok", d)
	}
	if d := ds[1]; !d.Cached || len(d.Providers) != 0 {
		t.Errorf("second decision = %+v, want cached, no provider asked", d)
	}
	if q := ds[2].Query; strings.Contains(q, secret) || !strings.Contains(q, "[REDACTED:") || !strings.HasPrefix(q, "why does ") {
		t.Errorf("third decision's query = %q, want the secret replaced by a [REDACTED:…] marker", q)
	}
	raw, _ := json.Marshal(ds)
	for _, s := range []string{tavilyKey, secret} {
		if bytes.Contains(raw, []byte(s)) {
			t.Errorf("the decision log holds %q:\n%s", s, raw)
		}
	}

	// The key is nowhere in the state directory, the store's files
	// included.
	err := filepath.WalkDir(state, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(tavilyKey)) {
			t.Errorf("%s holds the API key", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
