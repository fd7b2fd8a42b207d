package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/gateway"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider"
)

func statsCommand() command {
	return command{
		name:    "stats",
		summary: "Show usage per day and provider, monthly budgets, and parked keys and open breakers",
		run:     runStats,
	}
}

const statsDescription = `
Stats reads webgate's memory (the store: store.url, WEBGATE_STORE; SQLite
in the state directory by default), which every hook process, the MCP
server and the CLI share, and prints:

  usage     per day (UTC) and provider: requests, results, failed calls
            by kind, mean latency; and, when providers report them, the
            credits (Tavily, Firecrawl), cost in US dollars (Exa) and
            tokens (Jina) the calls used
  budgets   each monthly budget (providers.NAME.budget.monthly) and the
            share used; ⚠ from 80 %, and at 100 % the provider is skipped
            until the next month
  health    parked keys (by the first digits of their fingerprint, never
            the key), why and until when; providers cooling down; open
            circuit breakers
  store     per day (UTC): the hook calls, and how many went on without
            the store and why: it did not open within store.open_timeout
            (open timeout), a call to it took longer than store.timeout
            (op timeout), or it failed (error)
  gateway   when the store holds a team gateway's usage (webgate serve):
            per day (UTC) and token, with its owner, label and team, the
            calls admitted, the provider calls they made (credits) and
            those answered without one (cache hits)

Times are local. --json prints one JSON object with the same data (times
in UTC).

Exit status: 0 on success (also when nothing was recorded yet or the
store is off), 1 when the store cannot be opened or read, 2 for a bad
command line.`

const statsExamples = `  webgate stats
  webgate stats --since 24h
  webgate stats --since 2026-11-01
  webgate stats --json | jq '.usage[] | select(.failures > 0)'`

// defaultStatsSince is how far back stats looks by default.
const defaultStatsSince = "7d"

// statsReport is stats' JSON output.
type statsReport struct {
	Store storeLocation `json:"store"`
	// Since is the first day (UTC) of usage shown.
	Since   string       `json:"since"`
	Usage   []usageView  `json:"usage"`
	Budgets []budgetView `json:"budgets"`
	Health  []healthView `json:"health"`
	// StoreCalls counts the hook calls per day and those that went on
	// without the store, by reason.
	StoreCalls []memory.StoreDay `json:"store_calls"`
	// Gateway is each gateway token's use per day, when the store holds
	// a gateway's usage.
	Gateway []gateway.TokenUsage `json:"gateway,omitempty"`
	// Note says why there is nothing to show, when there is not.
	Note string `json:"note,omitempty"`
}

// usageView is one provider's use on one day.
type usageView struct {
	memory.Usage
	MeanLatencyMS int64 `json:"mean_latency_ms"`
}

func runStats(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("stats", "[flags]", statsDescription, statsExamples, stderr)
	asJSON := fs.Bool("json", false, "print one JSON object with the same data")
	sinceFlag := fs.String("since", defaultStatsSince, "show usage from this `DATE` (2026-11-01, UTC) or this long ago (7d, 24h)")
	configFile := fs.String("config", "", configUsage)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	now := time.Now()
	since, err := parseSince(*sinceFlag, now)
	if err != nil {
		fmt.Fprintf(stderr, "webgate stats: --since: %v\n", err)
		return exitUsage
	}
	cfg := loadForMemory(*configFile, "stats", stderr)
	out := &scrubWriter{w: stdout, secrets: cfg.Secrets()}
	defer out.flush()

	rep := statsReport{Store: locateStore(cfg), Since: since.UTC().Format("2006-01-02"), Usage: []usageView{}, Budgets: []budgetView{}, Health: []healthView{}, StoreCalls: []memory.StoreDay{}}
	switch {
	case rep.Store.Driver == "off":
		rep.Note = "the store is off: webgate keeps no usage, budgets or health"
	case rep.Store.notCreated():
		rep.Note = "nothing recorded yet: " + rep.Store.Path + " does not exist (the first hook call creates it)"
	default:
		m, err := openMemory(ctx, cfg, cliStoreTimeout)
		if err != nil {
			fmt.Fprintf(stderr, "webgate stats: %s: %s\n", rep.Store, storeError(err))
			return exitFail
		}
		defer m.Store().Close()
		if err := fillStats(ctx, m, cfg, since, &rep); err != nil {
			fmt.Fprintf(stderr, "webgate stats: reading %s: %s\n", rep.Store, storeError(err))
			return exitFail
		}
	}
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return exitOK
	}
	printStats(out, rep)
	return exitOK
}

// loadForMemory loads the configuration for a command that reads the
// memory: problems are warnings (the store settings may still be good),
// and a configuration that does not load at all means the defaults.
func loadForMemory(file, name string, stderr io.Writer) *config.Config {
	cfg, loadErr := currentHost().loadConfig(file)
	for _, p := range config.Problems(loadErr) {
		fmt.Fprintf(stderr, "webgate %s: config: %s\n", name, sanitize.Line(p))
	}
	if cfg == nil {
		cfg = config.Default()
	}
	return cfg
}

// fillStats reads usage, budgets and health from m into rep.
func fillStats(ctx context.Context, m *memory.Memory, cfg *config.Config, since time.Time, rep *statsReport) error {
	us, err := m.Usage(ctx, since)
	if err != nil {
		return err
	}
	for _, u := range us {
		u.Day, u.Provider = sanitize.Line(u.Day), sanitize.Line(u.Provider)
		rep.Usage = append(rep.Usage, usageView{Usage: u, MeanLatencyMS: u.MeanLatency().Milliseconds()})
	}
	bs, err := m.Budgets(ctx)
	if err != nil {
		return err
	}
	rep.Budgets = append(rep.Budgets, budgetViews(bs)...)
	sts, err := m.Health(ctx, cfg.Registry().Names())
	if err != nil {
		return err
	}
	rep.Health = append(rep.Health, healthViews(sts)...)
	days, err := m.StoreCalls(ctx, since)
	if err != nil {
		return err
	}
	rep.StoreCalls = append(rep.StoreCalls, days...)
	gw, err := gateway.ReadUsage(ctx, m.Store(), since)
	if err != nil {
		return err
	}
	for _, u := range gw {
		u.Owner, u.Label, u.Team = sanitize.Line(u.Owner), sanitize.Line(u.Label), sanitize.Line(u.Team)
		rep.Gateway = append(rep.Gateway, u)
	}
	if err := m.Problem(); err != nil {
		return err
	}
	return nil
}

// parseSince reads --since: a date (2026-11-01, UTC) or a duration back
// from now (7d, 24h, 90m).
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is neither a date (2026-11-01) nor a duration (7d, 24h)", s)
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return time.Time{}, fmt.Errorf("%q is neither a date (2026-11-01) nor a duration (7d, 24h)", s)
		}
	}
	if d <= 0 {
		return time.Time{}, errors.New("the duration must be positive")
	}
	return now.Add(-d), nil
}

// printStats writes the report as three sections.
func printStats(w io.Writer, rep statsReport) {
	fmt.Fprintf(w, "Store: %s\n", rep.Store)
	if rep.Note != "" {
		fmt.Fprintf(w, "%s.\n", upperFirst(rep.Note))
		return
	}

	fmt.Fprintf(w, "\nUsage since %s (days in UTC)\n", rep.Since)
	if len(rep.Usage) == 0 {
		fmt.Fprintln(w, "  no provider calls recorded")
	} else {
		var credits, cost, tokens bool
		for _, u := range rep.Usage {
			credits = credits || u.Credits > 0
			cost = cost || u.CostUSD > 0
			tokens = tokens || u.Tokens > 0
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		header := "  DAY\tPROVIDER\tREQUESTS\tRESULTS\tFAILURES\tMEAN LATENCY"
		if credits {
			header += "\tCREDITS"
		}
		if cost {
			header += "\tCOST"
		}
		if tokens {
			header += "\tTOKENS"
		}
		fmt.Fprintln(tw, header)
		for _, u := range rep.Usage {
			line := fmt.Sprintf("  %s\t%s\t%d\t%d\t%s\t%s", u.Day, u.Provider, u.Requests, u.Results, failuresText(u.Usage), latencyText(u.MeanLatency()))
			if credits {
				line += "\t" + figureText("", u.Credits)
			}
			if cost {
				line += "\t" + figureText("$", u.CostUSD)
			}
			if tokens {
				line += "\t" + tokensText(u.Tokens)
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
	}

	columns(w, "Monthly budgets (calendar month, UTC)", "none set (providers.NAME.budget.monthly)", len(rep.Budgets), func(tw io.Writer) {
		for _, b := range rep.Budgets {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", b.Provider, b.Month, b.line())
		}
	})
	columns(w, "Health", "every key and provider is usable", len(rep.Health), func(tw io.Writer) {
		for _, h := range rep.Health {
			for _, l := range h.lines() {
				fmt.Fprintf(tw, "  %s\t%s\n", h.Provider, l)
			}
		}
	})

	fmt.Fprintf(w, "\nHook calls and the store since %s (days in UTC)\n", rep.Since)
	if len(rep.StoreCalls) == 0 {
		fmt.Fprintln(w, "  no hook calls counted")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  DAY\tCALLS\tWITHOUT THE STORE")
		for _, d := range rep.StoreCalls {
			fmt.Fprintf(tw, "  %s\t%d\t%s\n", sanitize.Line(d.Day), d.Calls, skippedText(d))
		}
		tw.Flush()
	}
	printGatewayUsage(w, rep)
}

// printGatewayUsage writes the gateway's usage per day and token, when
// the store holds any.
func printGatewayUsage(w io.Writer, rep statsReport) {
	if len(rep.Gateway) == 0 {
		return
	}
	fmt.Fprintf(w, "\nGateway usage since %s (days in UTC)\n", rep.Since)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  DAY\tTOKEN\tOWNER\tLABEL\tTEAM\tREQUESTS\tCREDITS\tCACHE HITS")
	dash := func(s string) string { return cmp.Or(s, "-") }
	for _, u := range rep.Gateway {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\n", u.Day, u.Token, dash(u.Owner), dash(u.Label), dash(u.Team), u.Requests, u.Credits, u.CacheHits)
	}
	tw.Flush()
}

// skippedText renders the calls of a day that went on without the store:
// "3 (open timeout 2, op timeout 1)", or "0".
func skippedText(d memory.StoreDay) string {
	n := d.SkippedTotal()
	if n == 0 {
		return "0"
	}
	var parts []string
	for _, r := range memory.SkipReasons {
		if v := d.Skipped[r]; v > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", strings.ReplaceAll(string(r), "_", " "), v))
		}
	}
	return fmt.Sprintf("%d (%s)", n, strings.Join(parts, ", "))
}

// failuresText renders failed calls compactly: "3 (auth 1, transient 2)".
// columns prints a section of the report: a blank line and its title,
// then none when it has no rows (n is 0), else the rows that rows writes,
// aligned in columns.
func columns(w io.Writer, title, none string, n int, rows func(tw io.Writer)) {
	fmt.Fprintln(w, "\n"+title)
	if n == 0 {
		fmt.Fprintln(w, "  "+none)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	rows(tw)
	tw.Flush()
}

func failuresText(u memory.Usage) string {
	if u.Failures == 0 {
		return "0"
	}
	kinds := make([]string, 0, len(u.FailuresByKind))
	for k := range u.FailuresByKind {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", sanitize.Line(k), u.FailuresByKind[provider.Kind(k)]))
	}
	return fmt.Sprintf("%d (%s)", u.Failures, strings.Join(parts, ", "))
}

// figureText renders a reported figure in its shortest exact form after
// prefix ("12.5", "$0.0075", "20000"); "-" for none.
func figureText(prefix string, v float64) string {
	if v <= 0 {
		return "-"
	}
	return prefix + strconv.FormatFloat(v, 'f', -1, 64)
}

// tokensText renders a token count; "-" for none.
func tokensText(n int64) string {
	if n <= 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

// latencyText renders a latency to the millisecond ("412ms", "1.204s",
// "<1ms"); "-" for none.
func latencyText(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Millisecond:
		return "<1ms"
	}
	return d.Round(time.Millisecond).String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
