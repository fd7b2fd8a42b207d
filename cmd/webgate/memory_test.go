package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/assemble"
	"github.com/webgate-dev/webgate/cmd/internal/gateway"
	"github.com/webgate-dev/webgate/cmd/internal/setup"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/store"
)

// The keys the memory tests configure; they must never appear in any
// output, not even in a query the decision log kept.
const (
	memTavilyKey = "tvly-MEMSECRET-5f1e2d3c4b"
	memExaKey    = "exa-MEMSECRET-9a8b7c6d5e"
)

// memHost is a machine for the memory commands: a home and state
// directory of its own, the webgate binary with fake hook binaries next to
// it (registered in Claude Code's user settings, so that doctor's other
// checks pass), and an environment.
type memHost struct {
	t         *testing.T
	bin, home string
	proj      string
	env       map[string]string
}

func newMemHost(t *testing.T, bin string) *memHost {
	t.Helper()
	d := t.TempDir()
	h := &memHost{t: t, bin: bin, home: filepath.Join(d, "home"), proj: filepath.Join(d, "proj"), env: map[string]string{}}
	for _, p := range []string{h.home, h.proj} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.env["HOME"] = h.home
	h.env["PATH"] = "/usr/bin:/bin"
	h.env["TZ"] = "UTC"
	h.env["XDG_CONFIG_HOME"] = filepath.Join(h.home, ".config")
	h.env["XDG_STATE_HOME"] = filepath.Join(h.home, ".state")
	h.env["TAVILY_API_KEY"] = memTavilyKey
	h.env["EXA_API_KEY"] = memExaKey
	h.env["WEBGATE_PROVIDERS_TAVILY_BUDGET_MONTHLY"] = "10"
	// Generous bounds: the machine running the tests may be busy, and
	// an open breaker must outlast the test.
	h.env["WEBGATE_STORE_TIMEOUT"] = "5s"
	h.env["WEBGATE_HEALTH_BREAKER_COOLDOWN"] = "1h"
	return h
}

func (h *memHost) environ() []string {
	var env []string
	for k, v := range h.env {
		env = append(env, k+"="+v)
	}
	return env
}

func (h *memHost) dbPath() string {
	return filepath.Join(h.home, ".state", "webgate", config.StoreFile)
}

// run runs the webgate binary and checks that no key leaked.
func (h *memHost) run(args ...string) (code int, stdout, stderr string) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.bin, args...)
	cmd.Env, cmd.Dir = h.environ(), h.proj
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		h.t.Fatalf("run webgate %v: %v", args, err)
	}
	h.noKeys(args, out.String(), errb.String())
	return code, out.String(), errb.String()
}

func (h *memHost) noKeys(args []string, outputs ...string) {
	h.t.Helper()
	for _, o := range outputs {
		if strings.Contains(o, "MEMSECRET") {
			h.t.Fatalf("a key appeared in the output of %v:\n%s", args, o)
		}
	}
}

// memory opens the host's memory as the binary does, from the same
// settings, salt and store file.
func (h *memHost) memory() *memory.Memory {
	h.t.Helper()
	cfg, err := config.Load(&config.LoadOptions{Env: h.environ(), HomeDir: h.home})
	if err != nil {
		h.t.Fatal(err)
	}
	m, err := assemble.OpenMemory(context.Background(), cfg)
	if err != nil || m == nil {
		h.t.Fatalf("open memory: %v", err)
	}
	h.t.Cleanup(func() { m.Store().Close() })
	return m
}

// fakeSearcher answers with n results and usage, or fails with err.
type fakeSearcher struct {
	n     int
	err   error
	usage *provider.Usage
}

func (f fakeSearcher) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	if f.err != nil {
		return nil, f.err
	}
	r := &provider.Results{Query: q.Text, Usage: f.usage}
	for range f.n {
		r.Results = append(r.Results, provider.Result{Title: "t", URL: "https://go.dev/blog/context"})
	}
	return r, nil
}

// cachedQuery is the search the seeded cache holds.
var cachedQuery = provider.Query{Text: "golang context cancellation", MaxResults: 5}

// seed fills the host's memory through the memory's own paths: tavily
// answers 8 calls with 3 results for 2 credits each, is rate limited once
// (9 of its budget of 10: 90 %) and then has its key parked for an auth
// failure; exa answers once with 1 result for $0.0075, then fails 5 times
// in a row, which opens its breaker; jina answers 2 calls with 2 results
// for 10000 tokens each; two decisions are logged, one with the key and
// terminal escapes in its query; one search is cached; four hook calls
// are counted, one of which went on without the store (open timeout).
func (h *memHost) seed() {
	h.t.Helper()
	ctx := context.Background()
	m := h.memory()
	tavily := m.Searcher(memory.Backend{Name: "tavily", Keys: []string{memTavilyKey}}, fakeSearcher{n: 3, usage: &provider.Usage{Credits: 2}})
	for range 8 {
		if _, err := tavily.Search(ctx, provider.Query{Text: "q"}); err != nil {
			h.t.Fatal(err)
		}
	}
	limited := m.Searcher(memory.Backend{Name: "tavily", Keys: []string{memTavilyKey}},
		fakeSearcher{err: &provider.Error{Provider: "tavily", Kind: provider.KindRateLimited}})
	_, _ = limited.Search(ctx, provider.Query{Text: "q"})
	paid := m.Searcher(memory.Backend{Name: "exa", Keys: []string{memExaKey}}, fakeSearcher{n: 1, usage: &provider.Usage{CostUSD: 0.0075}})
	if _, err := paid.Search(ctx, provider.Query{Text: "q"}); err != nil {
		h.t.Fatal(err)
	}
	jina := m.Searcher(memory.Backend{Name: "jina"}, fakeSearcher{n: 2, usage: &provider.Usage{Tokens: 10000}})
	for range 2 {
		if _, err := jina.Search(ctx, provider.Query{Text: "q"}); err != nil {
			h.t.Fatal(err)
		}
	}
	exa := m.Searcher(memory.Backend{Name: "exa", Keys: []string{memExaKey}},
		fakeSearcher{err: &provider.Error{Provider: "exa", Kind: provider.KindTransient}})
	for range 5 {
		_, _ = exa.Search(ctx, provider.Query{Text: "q"})
	}
	pool := provider.NewPool([]string{memTavilyKey}, nil)
	keys := m.Keys("tavily", pool)
	keys.Report(keys.Keys(ctx)[0], provider.KindAuth)

	m.Record(ctx, memory.Decision{
		Time: time.Date(2026, 11, 3, 14, 5, 12, 0, time.UTC), Runtime: "claude-code", Event: "PreToolUse", Tool: "WebSearch",
		Decision: "deny", Query: "golang context \x1b[31mred\x1b[0m " + memTavilyKey, Cached: true, Latency: 412 * time.Millisecond,
		Providers: []memory.Outcome{{Provider: "tavily", Outcome: "ok"}, {Provider: "exa", Outcome: "transient"}},
	})
	m.Record(ctx, memory.Decision{
		Time: time.Date(2026, 11, 3, 14, 6, 0, 0, time.UTC), Runtime: "claude-code", Event: "PreToolUse", Tool: "WebFetch",
		Decision: "pass", Query: "https://example.org/" + strings.Repeat("long/", 40), Latency: 30 * time.Millisecond,
		Note: "the page is readable",
	})
	if _, err := m.CacheSearcher(fakeSearcher{n: 2}, []string{"tavily"}).Search(ctx, cachedQuery); err != nil {
		h.t.Fatal(err)
	}
	for _, r := range []memory.SkipReason{"", "", "", memory.SkipOpenTimeout} {
		m.CountCall(ctx, r)
	}
	if err := m.Problem(); err != nil {
		h.t.Fatalf("seeding: %v", err)
	}
}

// install puts fake hook binaries next to webgate and registers them, so
// that doctor's checks other than the store's pass.
func installFakeHooks(t *testing.T, bin, home string) {
	t.Helper()
	dir := filepath.Dir(bin)
	for _, n := range []string{"websearch", "webfetch", "webgate-hook"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(versionScript), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p, err := setup.PlanInstall(setup.Options{Target: setup.ClaudeCode, Scope: setup.User, Home: home,
		WebSearchBin: filepath.Join(dir, "websearch"), WebFetchBin: filepath.Join(dir, "webfetch")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(nil); err != nil {
		t.Fatal(err)
	}
}

func wantLine(t *testing.T, what, out, pattern string) string {
	t.Helper()
	re := regexp.MustCompile(pattern)
	for _, l := range strings.Split(out, "\n") {
		if re.MatchString(l) {
			return l
		}
	}
	t.Errorf("%s: no line matches %q in:\n%s", what, pattern, out)
	return ""
}

// TestMemoryCommands runs the built webgate's stats, log, cache, doctor
// and explain against a memory seeded through package memory.
func TestMemoryCommands(t *testing.T) {
	bin := buildWebgate(t)

	t.Run("StatsShowsUsageBudgetsAndHealth", func(t *testing.T) {
		h := newMemHost(t, bin)
		h.seed()
		code, out, errOut := h.run("stats")
		if code != exitOK {
			t.Fatalf("code %d\n%s%s", code, out, errOut)
		}
		day := time.Now().UTC().Format("2006-01-02")
		wantLine(t, "stats", out, `^Store: sqlite .*webgate\.db \(store\.url: default\)$`)
		wantLine(t, "stats", out, `^  DAY\s+PROVIDER\s+REQUESTS\s+RESULTS\s+FAILURES\s+MEAN LATENCY\s+CREDITS\s+COST\s+TOKENS$`)
		wantLine(t, "stats", out, `^  `+day+`\s+tavily\s+9\s+24\s+1 \(rate-limited 1\)\s+(<?\d+ms|\d[.\d]*s|-)\s+16\s+-\s+-$`)
		wantLine(t, "stats", out, `^  `+day+`\s+exa\s+6\s+1\s+5 \(transient 5\)\s+\S+\s+-\s+\$0\.0075\s+-$`)
		wantLine(t, "stats", out, `^  `+day+`\s+jina\s+2\s+4\s+0\s+\S+\s+-\s+-\s+20000$`)
		wantLine(t, "stats", out, `^  tavily\s+\d{4}-\d{2}\s+9/10 \(90 %\) ⚠$`)
		wantLine(t, "stats", out, `^  tavily\s+key [0-9a-f]{8}… parked \(auth\) until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$`)
		wantLine(t, "stats", out, `^  exa\s+circuit breaker open until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC, after 5 transient failures in a row$`)
		wantLine(t, "stats", out, `^Hook calls and the store since `)
		wantLine(t, "stats", out, `^  DAY\s+CALLS\s+WITHOUT THE STORE$`)
		wantLine(t, "stats", out, `^  `+day+`\s+4\s+1 \(open timeout 1\)$`)

		code, out, _ = h.run("stats", "--since", "2099-01-01")
		if code != exitOK || !strings.Contains(out, "no provider calls recorded") {
			t.Errorf("--since in the future: code %d\n%s", code, out)
		}
		for _, bad := range []string{"yesterday", "-3d", "0h"} {
			if code, _, errOut := h.run("stats", "--since", bad); code != exitUsage || !strings.Contains(errOut, "--since") {
				t.Errorf("--since %s: code %d, stderr %q", bad, code, errOut)
			}
		}
	})

	t.Run("StatsShowsGatewayUsagePerToken", func(t *testing.T) {
		h := newMemHost(t, bin)
		ctx := context.Background()
		st := h.memory().Store()
		code, out, _ := h.run("stats")
		if code != exitOK || strings.Contains(out, "Gateway usage") {
			t.Fatalf("a store without gateway usage has a gateway section: code %d\n%s", code, out)
		}
		tok, _, err := (&gateway.Tokens{Store: st}).Create(ctx, gateway.NewToken{Owner: "ana", Label: "laptop", Team: "core"})
		if err != nil {
			t.Fatal(err)
		}
		day := time.Now().UTC().Format("2006-01-02")
		prefix := gateway.UsagePrefix + "token/" + tok.ID + "/"
		if _, err := st.IncrMany(ctx, map[string]int64{prefix + "requests/day/" + day: 7, prefix + "credits/day/" + day: 5,
			prefix + "cache_hits/day/" + day: 2, prefix + "requests/day/2020-01-01": 3}, time.Hour); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := h.run("stats")
		if code != exitOK {
			t.Fatalf("code %d\n%s%s", code, out, errOut)
		}
		wantLine(t, "stats", out, `^Gateway usage since `)
		wantLine(t, "stats", out, `^  DAY\s+TOKEN\s+OWNER\s+LABEL\s+TEAM\s+REQUESTS\s+CREDITS\s+CACHE HITS$`)
		wantLine(t, "stats", out, `^  `+day+`\s+`+tok.ID+`\s+ana\s+laptop\s+core\s+7\s+5\s+2$`)
		if strings.Contains(out, "2020-01-01") {
			t.Errorf("a day before --since shown:\n%s", out)
		}
		code, out, _ = h.run("stats", "--json")
		var rep struct{ Gateway []gateway.TokenUsage }
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK || len(rep.Gateway) != 1 ||
			rep.Gateway[0] != (gateway.TokenUsage{Day: day, Token: tok.ID, Owner: "ana", Label: "laptop", Team: "core", Requests: 7, Credits: 5, CacheHits: 2}) {
			t.Errorf("stats --json: code %d, err %v, gateway %+v", code, err, rep.Gateway)
		}
	})

	t.Run("StatsJSONHasTheSameData", func(t *testing.T) {
		h := newMemHost(t, bin)
		h.seed()
		code, out, errOut := h.run("stats", "--json", "--since", "24h")
		if code != exitOK {
			t.Fatalf("code %d\n%s%s", code, out, errOut)
		}
		var rep struct {
			Store struct{ Driver, Location string }
			Usage []struct {
				Provider       string
				Requests       int64
				Results        int64
				Failures       int64
				FailuresByKind map[string]int64 `json:"failures_by_kind"`
				Credits        float64
				CostUSD        float64 `json:"cost_usd"`
				Tokens         int64
			}
			Budgets []struct {
				Provider    string
				Limit, Used int64
				Percent     int
				Warn, Spent bool
			}
			Health []struct {
				Provider   string
				ParkedKeys []struct {
					Fingerprint, Kind string
					Until             time.Time
				} `json:"parked_keys"`
				BreakerOpenUntil *time.Time `json:"breaker_open_until"`
				Failures         int        `json:"failures_in_a_row"`
			}
			StoreCalls []struct {
				Calls   int64
				Skipped map[string]int64
			} `json:"store_calls"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("not one JSON object: %v\n%s", err, out)
		}
		if len(rep.StoreCalls) != 1 || rep.StoreCalls[0].Calls != 4 || rep.StoreCalls[0].Skipped["open_timeout"] != 1 || len(rep.StoreCalls[0].Skipped) != 1 {
			t.Errorf("store calls = %+v", rep.StoreCalls)
		}
		if rep.Store.Driver != "sqlite" || !strings.HasSuffix(rep.Store.Location, "webgate.db") {
			t.Errorf("store = %+v", rep.Store)
		}
		usage := map[string]int{}
		for i, u := range rep.Usage {
			usage[u.Provider] = i
		}
		if i, ok := usage["tavily"]; !ok || rep.Usage[i].Requests != 9 || rep.Usage[i].Results != 24 || rep.Usage[i].FailuresByKind["rate-limited"] != 1 ||
			rep.Usage[i].Credits != 16 || rep.Usage[i].CostUSD != 0 || rep.Usage[i].Tokens != 0 {
			t.Errorf("tavily usage = %+v", rep.Usage)
		}
		if i, ok := usage["exa"]; !ok || rep.Usage[i].Failures != 5 || rep.Usage[i].FailuresByKind["transient"] != 5 || rep.Usage[i].CostUSD != 0.0075 {
			t.Errorf("exa usage = %+v", rep.Usage)
		}
		if i, ok := usage["jina"]; !ok || rep.Usage[i].Requests != 2 || rep.Usage[i].Tokens != 20000 || rep.Usage[i].Credits != 0 {
			t.Errorf("jina usage = %+v", rep.Usage)
		}
		if len(rep.Budgets) != 1 || rep.Budgets[0].Provider != "tavily" || rep.Budgets[0].Used != 9 || rep.Budgets[0].Limit != 10 ||
			rep.Budgets[0].Percent != 90 || !rep.Budgets[0].Warn || rep.Budgets[0].Spent {
			t.Errorf("budgets = %+v", rep.Budgets)
		}
		var parked, open bool
		for _, hv := range rep.Health {
			switch hv.Provider {
			case "tavily":
				parked = len(hv.ParkedKeys) == 1 && hv.ParkedKeys[0].Kind == "auth" && len(hv.ParkedKeys[0].Fingerprint) == 2*store.FingerprintBytes &&
					hv.ParkedKeys[0].Until.After(time.Now())
			case "exa":
				open = hv.BreakerOpenUntil != nil && hv.BreakerOpenUntil.After(time.Now()) && hv.Failures == 5
			}
		}
		if !parked || !open {
			t.Errorf("health = %+v", rep.Health)
		}
	})

	t.Run("LogPrintsDecisionsSanitisedAndShortened", func(t *testing.T) {
		h := newMemHost(t, bin)
		h.seed()
		code, out, errOut := h.run("log")
		if code != exitOK {
			t.Fatalf("code %d\n%s%s", code, out, errOut)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("want 2 lines:\n%s", out)
		}
		if !regexp.MustCompile(`^2026-11-03 14:05:12  claude-code  PreToolUse          WebSearch  deny     cached    412ms  \[tavily ok, exa transient\]  "golang context red `).MatchString(lines[0]) {
			t.Errorf("line 1 = %q", lines[0])
		}
		if !regexp.MustCompile(`^2026-11-03 14:06:00  claude-code  PreToolUse          WebFetch   pass     -          30ms  "https://example\.org/long/[a-z/]+…"  — the page is readable$`).MatchString(lines[1]) {
			t.Errorf("line 2 = %q", lines[1])
		}
		if strings.ContainsRune(out, '\x1b') || strings.Contains(out, "[31m") {
			t.Errorf("terminal escapes reached the output: %q", out)
		}

		code, out, _ = h.run("log", "-n", "1")
		if code != exitOK || strings.Count(out, "\n") != 1 || !strings.Contains(out, "WebFetch") {
			t.Errorf("log -n 1: code %d\n%s", code, out)
		}
		if code, _, _ := h.run("log", "-n", "-1"); code != exitUsage {
			t.Errorf("log -n -1: code %d", code)
		}
	})

	t.Run("LogJSONPrintsOneObjectPerLine", func(t *testing.T) {
		h := newMemHost(t, bin)
		h.seed()
		code, out, errOut := h.run("log", "--json", "-n", "0")
		if code != exitOK {
			t.Fatalf("code %d\n%s%s", code, out, errOut)
		}
		var got []logRecord
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var r logRecord
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			got = append(got, r)
		}
		if len(got) != 2 || got[0].ID <= 0 || got[1].ID <= got[0].ID {
			t.Fatalf("records = %+v", got)
		}
		first := got[0]
		if first.Tool != "WebSearch" || first.Decision.Decision != "deny" || !first.Cached || first.Latency != 412*time.Millisecond ||
			len(first.Providers) != 2 || first.Providers[1] != (memory.Outcome{Provider: "exa", Outcome: "transient"}) ||
			!strings.HasPrefix(first.Query, "golang context ") || strings.ContainsRune(first.Query, '\x1b') {
			t.Errorf("first record = %+v", first)
		}
		if got[1].Note != "the page is readable" || !strings.HasSuffix(got[1].Query, "long/long/") {
			t.Errorf("second record = %+v (the JSON keeps the whole URL)", got[1])
		}
	})

	t.Run("LogFollowPrintsNewDecisionsAndEndsCleanlyOnInterrupt", func(t *testing.T) {
		h := newMemHost(t, bin)
		h.seed()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, h.bin, "log", "-n", "1", "--follow")
		cmd.Env, cmd.Dir = h.environ(), h.proj
		var errb bytes.Buffer
		cmd.Stderr = &errb
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 10)
		var all strings.Builder
		go func() {
			sc := bufio.NewScanner(pipe)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		next := func() string {
			t.Helper()
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("output ended; stderr: %s", errb.String())
				}
				all.WriteString(l + "\n")
				return l
			case <-ctx.Done():
				t.Fatal("timed out waiting for a line")
			}
			return ""
		}
		if l := next(); !strings.Contains(l, "WebFetch") {
			t.Fatalf("first line = %q", l)
		}
		h.memory().Record(context.Background(), memory.Decision{Runtime: "gemini-cli", Event: "BeforeTool", Tool: "google_web_search",
			Decision: "deny", Query: "new query " + memExaKey})
		if l := next(); !strings.Contains(l, "gemini-cli") || !strings.Contains(l, `"new query `) {
			t.Fatalf("followed line = %q", l)
		}
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		for range lines {
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("after SIGINT: %v; stderr: %s", err, errb.String())
		}
		h.noKeys([]string{"log", "--follow"}, all.String(), errb.String())
	})

	t.Run("CacheClearRemovesTheEntries", func(t *testing.T) {
		h := newMemHost(t, bin)
		h.seed()
		key := memory.SearchKey(cachedQuery, []string{"tavily"})
		if _, err := h.memory().Store().Get(context.Background(), key); err != nil {
			t.Fatalf("the seeded entry is missing: %v", err)
		}
		code, out, errOut := h.run("cache", "clear")
		if code != exitOK || out != "removed 1 cached entry (sqlite)\n" {
			t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
		}
		if _, err := h.memory().Store().Get(context.Background(), key); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("after cache clear: %v", err)
		}
		code, _, errOut = h.run("stats", "--json")
		if code != exitOK || errOut != "" {
			t.Errorf("stats after cache clear: code %d, stderr %q", code, errOut)
		}
		if code, _, errOut := h.run("cache"); code != exitUsage || !strings.Contains(errOut, "Usage: webgate cache clear") {
			t.Errorf("cache alone: code %d, stderr %q", code, errOut)
		}
		if code, _, errOut := h.run("cache", "flush"); code != exitUsage || !strings.Contains(errOut, `unknown subcommand "flush"`) {
			t.Errorf("cache flush: code %d, stderr %q", code, errOut)
		}
	})

	t.Run("DoctorStoreSectionOKThenFailOnACorruptFile", func(t *testing.T) {
		h := newMemHost(t, bin)
		installFakeHooks(t, bin, h.home)
		h.seed()
		code, out, errOut := h.run("doctor")
		if code != exitOK {
			t.Fatalf("code %d\n%s%s", code, out, errOut)
		}
		wantLine(t, "doctor", out, `^  INFO\s+store\s+sqlite .*webgate\.db \(store\.url: default\)$`)
		wantLine(t, "doctor", out, `^  OK\s+open\s+opens in \S+ \(store\.open_timeout 1s\), answers a read and a write in \S+, the slowest round trip \S+ \(store\.timeout 5s\)$`)
		wantLine(t, "doctor", out, `^  WARN\s+tavily\s+key [0-9a-f]{8}… parked \(auth\) until `)
		wantLine(t, "doctor", out, `^  WARN\s+exa\s+circuit breaker open until .*after 5 transient failures in a row`)
		wantLine(t, "doctor", out, `^  WARN\s+tavily budget\s+\d{4}-\d{2}: 9/10 \(90 %\) ⚠$`)

		if err := os.WriteFile(h.dbPath(), bytes.Repeat([]byte("not a database "), 300), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, suffix := range []string{"-wal", "-shm"} {
			_ = os.Remove(h.dbPath() + suffix)
		}
		code, out, _ = h.run("doctor")
		if code != exitFail {
			t.Fatalf("corrupt store: code %d\n%s", code, out)
		}
		wantLine(t, "doctor", out, `^  FAIL\s+open\s+store sqlite open: corrupt: .*: the hooks work without memory`)
		wantLine(t, "doctor", out, `→ move the file aside \(mv .*webgate\.db .*webgate\.db\.broken\)`)
		if n := strings.Count(out, "  FAIL "); n != 1 {
			t.Errorf("want the store's FAIL alone, got %d:\n%s", n, out)
		}
		code, out, _ = h.run("doctor", "--json")
		var rep struct {
			OK     bool
			Checks []check
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitFail || rep.OK {
			t.Fatalf("doctor --json: code %d, err %v\n%s", code, err, out)
		}
		if code, _, errOut := h.run("stats"); code != exitFail || !strings.Contains(errOut, "corrupt") {
			t.Errorf("stats on a corrupt store: code %d, stderr %q", code, errOut)
		}
	})

	t.Run("DoctorLeavesAMissingStoreUncreated", func(t *testing.T) {
		h := newMemHost(t, bin)
		code, out, _ := h.run("doctor")
		wantLine(t, "doctor", out, `^  INFO\s+open\s+not created yet: the first hook call creates it$`)
		if _, err := os.Stat(h.dbPath()); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("doctor created the store (code %d): %v", code, err)
		}
		for _, args := range [][]string{{"stats"}, {"log"}, {"cache", "clear"}, {"explain", "--query", "go"}} {
			if code, _, errOut := h.run(args...); code != exitOK {
				t.Errorf("%v without a store: code %d, stderr %q", args, code, errOut)
			}
		}
		if _, err := os.Stat(h.dbPath()); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a reading command created the store: %v", err)
		}
	})

	t.Run("DoctorTellsASlowStoreFromABrokenOne", func(t *testing.T) {
		h := newMemHost(t, bin)
		h.seed()
		// A store that answers, but slower than the hooks wait, is a
		// warning naming the setting to raise: for opening, then for a
		// round trip.
		h.env["WEBGATE_STORE_OPEN_TIMEOUT"] = "1ns"
		_, out, _ := h.run("doctor")
		wantLine(t, "doctor", out, `^  WARN\s+open\s+opens in \S+ \(store\.open_timeout 1ns\), .*: opening takes longer than store\.open_timeout, so hook calls go on without the store$`)
		wantLine(t, "doctor", out, `→ raise store\.open_timeout \(WEBGATE_STORE_OPEN_TIMEOUT\) above `)
		delete(h.env, "WEBGATE_STORE_OPEN_TIMEOUT")
		h.env["WEBGATE_STORE_TIMEOUT"] = "1ns"
		_, out, _ = h.run("doctor")
		wantLine(t, "doctor", out, `^  WARN\s+open\s+opens in .*the slowest round trip \S+ \(store\.timeout 1ns\): a round trip takes longer than store\.timeout, so hook calls go on without the store$`)
		wantLine(t, "doctor", out, `→ raise store\.timeout \(WEBGATE_STORE_TIMEOUT\) above `)

		h.env["WEBGATE_STORE_TIMEOUT"] = "2s"
		h.env["WEBGATE_STORE"] = "redis://:pw-MEMSECRET@127.0.0.1:1/0"
		_, out, _ = h.run("doctor")
		wantLine(t, "doctor", out, `^  INFO\s+store\s+redis redis://127\.0\.0\.1:1/0 \(store\.url: env WEBGATE_STORE\)$`)
		wantLine(t, "doctor", out, `^  FAIL\s+open\s+store redis open: .*: the hooks work without memory`)
		if code, _, errOut := h.run("stats"); code != exitFail || !strings.Contains(errOut, "redis://127.0.0.1:1/0") {
			t.Errorf("stats: code %d, stderr %q", code, errOut)
		}
	})

	t.Run("StoreOffIsSaidPlainly", func(t *testing.T) {
		h := newMemHost(t, bin)
		h.env["WEBGATE_STORE"] = "off"
		_, out, _ := h.run("doctor")
		wantLine(t, "doctor", out, `^  INFO\s+store\s+off \(store\.url: env WEBGATE_STORE\): webgate remembers nothing across calls`)
		code, out, _ := h.run("stats")
		if code != exitOK || !strings.Contains(out, "The store is off") {
			t.Errorf("stats: code %d\n%s", code, out)
		}
		code, out, _ = h.run("stats", "--json")
		if code != exitOK || !strings.Contains(out, `"driver": "off"`) {
			t.Errorf("stats --json: code %d\n%s", code, out)
		}
		if code, out, _ := h.run("cache", "clear"); code != exitOK || !strings.Contains(out, "the store is off") {
			t.Errorf("cache clear: code %d\n%s", code, out)
		}
		if code, _, errOut := h.run("log"); code != exitOK || !strings.Contains(errOut, "the store is off") {
			t.Errorf("log: code %d, stderr %q", code, errOut)
		}
	})

	t.Run("ExplainSaysWhichProvidersTheMemorySkipsAndUntilWhen", func(t *testing.T) {
		h := newMemHost(t, bin)
		h.seed()
		code, out, errOut := h.run("explain", "--query", "golang generics")
		if code != exitOK {
			t.Fatalf("code %d\n%s%s", code, out, errOut)
		}
		wantLine(t, "explain", out, `^  memory\s+tavily skipped until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: the key is parked \(auth\)$`)
		wantLine(t, "explain", out, `^  memory\s+exa skipped until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: circuit open after 5 transient failures in a row$`)
		wantLine(t, "explain", out, `^  memory\s+every provider is skipped: the hook steps aside and the native tool runs$`)

		code, out, _ = h.run("explain", "--json", "--query", "golang generics")
		var ex struct{ Memory []memoryNote }
		if err := json.Unmarshal([]byte(out), &ex); err != nil || code != exitOK || len(ex.Memory) != 3 || !ex.Memory[0].Skipped || ex.Memory[0].Until == nil {
			t.Errorf("explain --json: code %d, err %v, memory %+v", code, err, ex.Memory)
		}
	})
	t.Run("SpentBudgetIsExplainedUntilNextMonth", func(t *testing.T) {
		// The monthly counter under its documented name.
		h := newMemHost(t, bin)
		month := time.Now().UTC().Format("2006-01")
		if _, err := h.memory().Store().IncrMany(context.Background(), map[string]int64{"month/" + month + "/tavily/requests": 12}, 0); err != nil {
			t.Fatal(err)
		}
		_, out, _ := h.run("explain", "--query", "golang generics")
		next := nextMonth(month).Format("2006-01-02")
		wantLine(t, "explain", out, `^  memory\s+tavily skipped until `+next+` 00:00 UTC: monthly budget of 10 requests reached \(12 used\)$`)
		if strings.Contains(out, "every provider is skipped") {
			t.Errorf("exa is still called:\n%s", out)
		}
		_, out, _ = h.run("stats")
		wantLine(t, "stats", out, `^  tavily\s+`+month+`\s+12/10 \(120 %\) ⚠ spent: skipped until `+next+` 00:00 UTC$`)
	})
}

func TestStats_ShowsTheCreditsCostAndTokensColumnsOnlyWhenARowHasThem(t *testing.T) {
	row := func(name string, u memory.Usage) usageView {
		u.Day, u.Provider, u.Requests = "2026-11-03", name, 1
		return usageView{Usage: u}
	}
	header := func(rep statsReport) string {
		var b bytes.Buffer
		printStats(&b, rep)
		return wantLine(t, "stats", b.String(), `^  DAY\s`)
	}
	plain := statsReport{Since: "2026-11-01", Usage: []usageView{row("brave", memory.Usage{})}}
	if h := header(plain); strings.Contains(h, "CREDITS") || strings.Contains(h, "COST") || strings.Contains(h, "TOKENS") {
		t.Errorf("no figures reported, header %q", h)
	}
	credits := statsReport{Since: "2026-11-01", Usage: []usageView{row("brave", memory.Usage{}), row("firecrawl", memory.Usage{Credits: 2.5})}}
	if h := header(credits); !strings.HasSuffix(h, "MEAN LATENCY  CREDITS") {
		t.Errorf("credits reported, header %q, want a CREDITS column alone", h)
	}
	var b bytes.Buffer
	printStats(&b, credits)
	wantLine(t, "stats", b.String(), `^  2026-11-03\s+brave\s+1\s+0\s+0\s+-\s+-$`)
	wantLine(t, "stats", b.String(), `^  2026-11-03\s+firecrawl\s+1\s+0\s+0\s+-\s+2\.5$`)

	js, err := json.Marshal(plain.Usage[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"credits"`, `"cost_usd"`, `"tokens"`} {
		if strings.Contains(string(js), k) {
			t.Errorf("--json row without figures has %s: %s", k, js)
		}
	}
}
