package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/memory"
)

func logCommand() command {
	return command{
		name:    "log",
		summary: "Show the hooks' recent decisions (--follow to watch new ones)",
		run:     runLog,
	}
}

const logDescription = `
Log prints the hooks' recent decisions from webgate's memory (the store:
store.url, WEBGATE_STORE; SQLite in the state directory by default), oldest
first, one line each:

  time (local)  runtime  event  tool  decision  cached  latency
  [provider outcome, …]  "query or URL"  — note

The query or URL is kept as log.queries says (full after redaction of
secret-like values, hashed, or not at all), and is shortened here.
--follow then prints new decisions as the hooks record them, until
interrupted (Ctrl-C); it creates the store when it does not exist yet, to
wait for the first decision. --json prints one JSON object per decision
and line.

Exit status: 0 on success (also when nothing was recorded yet or the
store is off), 1 when the store cannot be opened or read, 2 for a bad
command line.`

const logExamples = `  webgate log
  webgate log -n 100
  webgate log --follow
  webgate log --json -n 0 | jq -r 'select(.decision == "pass") | .note'`

// defaultLogLines is how many decisions log prints by default.
const defaultLogLines = 20

// maxLogQuery is how many characters of a query or URL a log line shows.
const maxLogQuery = 80

// logRecord is log's JSON output, one object per line.
type logRecord struct {
	ID int64 `json:"id"`
	memory.Decision
}

func runLog(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("log", "[flags]", logDescription, logExamples, stderr)
	n := fs.Int("n", defaultLogLines, "print the newest `N` decisions (0 for every one kept)")
	asJSON := fs.Bool("json", false, "print one JSON object per decision and line")
	follow := fs.Bool("follow", false, "then print new decisions as they are recorded, until interrupted")
	configFile := fs.String("config", "", configUsage)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if *n < 0 {
		fmt.Fprintln(stderr, "webgate log: -n must be 0 or more")
		return exitUsage
	}
	cfg := loadForMemory(*configFile, "log", stderr)
	out := &scrubWriter{w: stdout, secrets: cfg.Secrets()}
	defer out.flush()
	loc := locateStore(cfg)
	switch {
	case loc.Driver == "off":
		fmt.Fprintf(stderr, "webgate log: the store is off (store.url: %s): no decisions are recorded\n", loc.Origin)
		return exitOK
	case loc.notCreated() && !*follow:
		fmt.Fprintf(stderr, "webgate log: no decisions recorded yet: %s does not exist (the first hook call creates it)\n", loc.Path)
		return exitOK
	}
	if cfg.Log.Off {
		fmt.Fprintln(stderr, "webgate log: note: the decision log is off (log.off): no new decisions are recorded")
	}
	m, err := openMemory(ctx, cfg, cliStoreTimeout)
	if err != nil {
		fmt.Fprintf(stderr, "webgate log: %s: %s\n", loc, storeError(err))
		return exitFail
	}
	defer m.Store().Close()
	ds, err := m.Decisions(ctx, *n, time.Time{})
	if err != nil {
		fmt.Fprintf(stderr, "webgate log: reading %s: %s\n", loc, storeError(err))
		return exitFail
	}
	var last int64
	for _, d := range ds {
		writeDecision(out, d, *asJSON)
		last = max(last, d.ID)
	}
	if len(ds) == 0 {
		// Said on stderr, so that --json's output stays one object a line.
		note := "no decisions recorded yet in " + loc.String()
		if *follow {
			note += "; waiting for new ones"
		}
		fmt.Fprintf(stderr, "webgate log: %s\n", note)
	}
	if !*follow {
		return exitOK
	}
	out.flush()
	shown := ""
	for d, err := range m.FollowDecisions(ctx, last) {
		if err != nil {
			// The store may come back: say so once per distinct problem,
			// and keep following.
			if msg := storeError(err); msg != shown {
				fmt.Fprintf(stderr, "webgate log: reading %s: %s (still following)\n", loc, msg)
				shown = msg
			}
			continue
		}
		shown = ""
		writeDecision(out, d, *asJSON)
		out.flush()
	}
	if ctx.Err() != nil {
		// Interrupted: the normal way to stop following.
		return exitOK
	}
	fmt.Fprintf(stderr, "webgate log: %s: stopped answering\n", loc)
	return exitFail
}

// writeDecision prints d as a line, or as a JSON object on one line.
// Everything read from the store is sanitised for the terminal.
func writeDecision(w io.Writer, d memory.Decision, asJSON bool) {
	d.Runtime, d.Event, d.Tool = sanitize.Line(d.Runtime), sanitize.Line(d.Event), sanitize.Line(d.Tool)
	d.Session, d.Decision = sanitize.Line(d.Session), sanitize.Line(d.Decision)
	d.Query, d.Note = sanitize.Line(d.Query), sanitize.Line(d.Note)
	for i, o := range d.Providers {
		d.Providers[i] = memory.Outcome{Provider: sanitize.Line(o.Provider), Outcome: sanitize.Line(o.Outcome)}
	}
	if asJSON {
		b, err := json.Marshal(logRecord{ID: d.ID, Decision: d})
		if err == nil {
			fmt.Fprintf(w, "%s\n", b)
		}
		return
	}
	fmt.Fprintln(w, decisionLine(d))
}

// decisionLine renders a decision on one line.
func decisionLine(d memory.Decision) string {
	cached := "-"
	if d.Cached {
		cached = "cached"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %-11s  %-18s  %-9s  %-7s  %-6s  %7s",
		d.Time.Local().Format("2006-01-02 15:04:05"), orDash(d.Runtime), orDash(d.Event), orDash(d.Tool),
		orDash(d.Decision), cached, latencyText(d.Latency))
	if len(d.Providers) > 0 {
		ps := make([]string, len(d.Providers))
		for i, o := range d.Providers {
			ps[i] = o.Provider + " " + o.Outcome
		}
		b.WriteString("  [" + strings.Join(ps, ", ") + "]")
	}
	if d.Query != "" {
		b.WriteString("  \"" + shorten(d.Query, maxLogQuery) + "\"")
	}
	if d.Note != "" {
		b.WriteString("  — " + shorten(d.Note, maxLogQuery))
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// shorten cuts s to at most n characters, marking the cut with "…".
func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
