package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/assemble"
	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/internal/redact"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/webpage/browser"
)

// Exit codes of the search and fetch commands, beyond exitOK (0),
// exitFail (1: the page could not be read, or an unexpected failure) and
// exitUsage (2: a bad command line).
//
//	0  success
//	1  failure: the page answered with an error status (404 …) or could
//	   not be read at all
//	2  bad input: a bad command line, an empty query, a URL that is not
//	   http(s) or points at a refused address
//	3  no results (search)
//	4  every provider failed (the message names each one's class:
//	   auth-failed, credit-or-quota-failed, rate-limited,
//	   transient-provider-failed, unknown)
//	5  not configured: no provider has an API key for what was needed
const (
	exitNoResults     = 3
	exitProvider      = 4
	exitNotConfigured = 5
)

// exitCodesHelp documents the exit codes in --help.
const exitCodesHelp = `Exit status:
  0  success
  1  the page answered with an error status (404, …) or could not be read
  2  bad input: bad flags, an empty query, a URL that is not http(s) or
     points at a loopback or private address
  3  no results (search)
  4  every provider failed (auth-failed, credit-or-quota-failed,
     rate-limited, transient-provider-failed or unknown, as the message
     says; rate-limited was reported as credit-or-quota-failed before,
     which --json still gives as legacy_class)
  5  not configured: no provider has an API key
  6  the team gateway (WEBGATE_GATEWAY_URL) did not answer: not reachable
     within 300ms, no answer within the timeout and 2s more, the token
     refused (401) or a limit reached (429)`

// exitCode maps a webtools error to an exit code.
func exitCode(err error) int {
	switch webtools.ReasonOf(err) {
	case webtools.BadInput:
		return exitUsage
	case webtools.ProviderFailed:
		return exitProvider
	case webtools.NotConfigured:
		return exitNotConfigured
	}
	var ge *gatewayError
	if errors.As(err, &ge) {
		return exitGateway
	}
	return exitFail
}

// overrides are command-line changes to the loaded configuration.
type overrides struct {
	configFile string
	mode       string
	// searchProviders and extractProviders replace the configured orders
	// (--provider); nil keeps them.
	searchProviders, extractProviders []string
	// browsers keeps the local browser between renders (a long-running
	// command); nil starts one per render.
	browsers *browser.Pool
	// afterWrites, when set, makes the memory keep the writes that can
	// wait (memory.Memory.DeferWrites) and receives the function that
	// writes them, for a long-running command to call after its answers.
	afterWrites *func(context.Context) error
}

// storeOpenTimeout bounds opening the store for a command.
const storeOpenTimeout = 2 * time.Second

// loadTools loads the configuration from h, applies o, and builds the
// webtools.Tools every web command uses through the one construction path
// (assemble.Build) with the configured docs and tool routes.
// Configuration problems are returned as warnings: unlike the hooks, which
// step aside, the commands carry on with what is valid. A provider named
// by o that cannot be used is a warning too, saying what to set.
func loadTools(h hostEnv, o overrides) (*webtools.Tools, *config.Config, []string) {
	cfg, err := h.loadConfig(o.configFile)
	warnings := config.Problems(err)
	if o.mode != "" {
		cfg.Search.Mode = o.mode
	}
	// The memory (cache, key health, usage) is shared with the hooks; a
	// store that cannot be opened is a warning, and the command works
	// without it. The process's exit closes it.
	mctx, cancel := context.WithTimeout(context.Background(), storeOpenTimeout)
	mem, merr := assemble.OpenMemory(mctx, cfg)
	cancel()
	if merr != nil {
		warnings = append(warnings, "the store is not usable, going on without it: "+merr.Error())
	}
	if o.afterWrites != nil {
		mem.DeferWrites()
		*o.afterWrites = mem.Flush
	}
	st, err := assemble.Build(cfg, &assemble.Options{SearchProviders: o.searchProviders, ExtractProviders: o.extractProviders, Memory: mem, Browsers: o.browsers})
	warnings = append(warnings, buildProblems(err)...)
	searchOrder, extractOrder := cfg.Search.Order(), cfg.Extract.Order()
	if o.searchProviders != nil {
		searchOrder = o.searchProviders
	}
	if o.extractProviders != nil {
		extractOrder = o.extractProviders
	}
	rs := loadRouteSet(cfg)
	t := &webtools.Tools{
		Searcher:    st.Searcher,
		Reader:      st.Reader,
		Docs:        rs.Docs,
		Routes:      rs.Tools,
		MaxResults:  cfg.Search.MaxResults,
		SearchHint:  keyHint(cfg, searchOrder, o.searchProviders != nil, true),
		ExtractHint: keyHint(cfg, extractOrder, o.extractProviders != nil, false),
		PrivateHint: privateHint,
		Secrets:     cfg.Secrets(),
	}
	// Providers the command line named that cannot be used are left out,
	// with a warning. A search with none left fails with the same words
	// (see runSearch); a fetch may need no provider at all.
	if len(st.SearchProviders) > 0 {
		warnings = append(warnings, leftOut(cfg, o.searchProviders, true)...)
	}
	warnings = append(warnings, leftOut(cfg, o.extractProviders, false)...)
	var out []string
	for _, w := range slices.Concat(warnings, rs.Warnings) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return t, cfg, out
}

// buildProblems splits what assemble.Build could not build into one
// warning each.
func buildProblems(err error) []string {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []string
		for _, e := range j.Unwrap() {
			out = append(out, buildProblems(e)...)
		}
		return out
	}
	return config.Problems(err)
}

// leftOut says, for each of names that cannot be used for a search
// (search) or an extraction, what to set, and that it is left out.
func leftOut(cfg *config.Config, names []string, search bool) []string {
	var out []string
	for _, n := range names {
		if !cfg.Usable(n, search) {
			out = append(out, providerHint(cfg, n)+"; it is left out")
		}
	}
	return out
}

// keyHint says what to set so that the named providers can be used. For
// providers the command line named (flagged), it says what each one that
// cannot be used lacks ("brave has no API key: set BRAVE_API_KEY or
// providers.brave.keys."); otherwise it names the variables of the whole
// order in one sentence.
func keyHint(cfg *config.Config, names []string, flagged, search bool) string {
	if flagged {
		var hints []string
		for _, n := range names {
			if !cfg.Usable(n, search) {
				hints = append(hints, providerHint(cfg, n)+".")
			}
		}
		return strings.Join(hints, " ")
	}
	var vars []string
	for _, n := range names {
		if b, ok := cfg.Registry().Lookup(n); ok {
			if v := setVar(b); v != "" && !slices.Contains(vars, v) {
				vars = append(vars, v)
			}
		}
	}
	if len(vars) == 0 {
		return ""
	}
	return "Set " + orList(vars) + " in webgate's environment (for an MCP server, in its \"env\"), or the provider keys in webgate's configuration file."
}

// providerHint says what the named provider lacks and what to set: "brave
// has no API key: set BRAVE_API_KEY or providers.brave.keys", or for a
// provider that takes no key (SearXNG) "searxng has no instance URL: set
// SEARXNG_URL or providers.searxng.base_url".
func providerHint(cfg *config.Config, name string) string {
	b, ok := cfg.Registry().Lookup(name)
	switch {
	case !ok:
		return name + " is not a provider"
	case b.NoKey:
		return fmt.Sprintf("%s has no instance URL: set %s or providers.%s.base_url", name, setVar(b), name)
	}
	return fmt.Sprintf("%s has no API key: set %s or providers.%s.keys", name, setVar(b), name)
}

// setVar returns the environment variable that makes b usable: its key
// variable (Backend.KeyEnv), or for a provider that takes no key the
// variable of its base URL (SEARXNG_URL).
func setVar(b config.Backend) string {
	key := "providers." + b.Name + ".keys"
	if b.NoKey {
		key = "providers." + b.Name + ".base_url"
	} else if b.KeyEnv != "" {
		return b.KeyEnv
	}
	if s, ok := config.SettingByKey(key); ok {
		if len(s.Legacy) > 0 {
			return s.Legacy[0]
		}
		return s.Env
	}
	return ""
}

func orList(items []string) string {
	switch len(items) {
	case 1:
		return items[0]
	case 2:
		return items[0] + " or " + items[1]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// printWarnings writes configuration warnings to stderr.
func printWarnings(stderr io.Writer, cmd string, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(stderr, "webgate %s: warning: %s\n", cmd, sanitize.Line(redact.String(w)))
	}
}

// errorsOnly wraps a command's stderr for --quiet: warnings, progress and
// notes are dropped, and only lines that report a failure pass — those
// not marked "warning:" or written as progress. It is not a terminal, so
// no progress line is drawn.
func errorsOnly(w io.Writer) io.Writer { return &quietWriter{w: w} }

type quietWriter struct {
	w   io.Writer
	buf []byte
}

func (q *quietWriter) Write(p []byte) (int, error) {
	q.buf = append(q.buf, p...)
	for {
		i := bytes.IndexByte(q.buf, '\n')
		if i < 0 {
			break
		}
		line := q.buf[:i+1]
		if !bytes.Contains(line, []byte(": warning: ")) && !bytes.Contains(line, []byte(": no results (")) && !bytes.Contains(line, []byte(": wrote ")) {
			if _, err := q.w.Write(line); err != nil {
				return len(p), err
			}
		}
		q.buf = q.buf[i+1:]
	}
	return len(p), nil
}

// printError writes a failed command's error to stderr on one line, under
// the terminal rule: its message may echo text from the web.
func printError(stderr io.Writer, cmd string, err error) {
	fmt.Fprintf(stderr, "webgate %s: %s\n", cmd, sanitize.Line(err.Error()))
}

// printText writes text from the web to w under the terminal rule
// ([sanitize.Text]), ending it with a newline when it has none.
func printText(w io.Writer, text string) {
	text = sanitize.Text(text)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	fmt.Fprint(w, text)
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// spinner shows "label…" with a spinning mark on w after a short delay,
// until the returned stop function is called, which erases it. It does
// nothing unless w is a terminal, so that pipes and logs stay clean.
func spinner(w io.Writer, label string) (stop func()) {
	if !isTerminal(w) {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-done:
			return
		case <-time.After(400 * time.Millisecond):
		}
		marks := []string{"|", "/", "-", `\`}
		tick := time.NewTicker(120 * time.Millisecond)
		defer tick.Stop()
		start := time.Now().Add(-400 * time.Millisecond)
		for i := 0; ; i++ {
			fmt.Fprintf(w, "\r%s %s… %.1fs", marks[i%len(marks)], label, time.Since(start).Seconds())
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

// jsonError is the --json form of a failure. LegacyClass is the older
// name of Class, when it has one (rate-limited was credit-or-quota-failed).
type jsonError struct {
	Error struct {
		Reason      webtools.Reason    `json:"reason"`
		Class       string             `json:"class,omitempty"`
		LegacyClass string             `json:"legacy_class,omitempty"`
		Message     string             `json:"message"`
		Failures    []webtools.Failure `json:"failed_providers,omitempty"`
		TimedOut    bool               `json:"timed_out,omitempty"`
		// RetryAfter is the gateway's Retry-After in seconds, for a call
		// refused by a limit (reason rate-limited).
		RetryAfter int64 `json:"retry_after,omitempty"`
	} `json:"error"`
}

func jsonErrorOf(err error) jsonError {
	var j jsonError
	var e *webtools.Error
	var ge *gatewayError
	if errors.As(err, &e) {
		j.Error.Reason, j.Error.Class, j.Error.Failures, j.Error.TimedOut = e.Reason, string(e.Class), e.Failures, e.TimedOut
		j.Error.LegacyClass = string(webtools.LegacyClass(e.Class))
	} else if errors.As(err, &ge) {
		j.Error.Reason = webtools.Reason(ge.Reason)
		if ge.RetryAfter > 0 {
			j.Error.RetryAfter = int64(ge.RetryAfter / time.Second)
		}
	} else {
		j.Error.Reason = "unknown"
	}
	j.Error.Message = sanitize.Line(err.Error())
	return j
}

// privateHint says how to let webgate read rawURL, refused for its
// address, when a setting would: hooks.webfetch.allow_private, which the
// CLI and the MCP server read pages under too.
func privateHint(rawURL string) string {
	if !hooks.PrivateOnly(rawURL) {
		return ""
	}
	return strings.ToUpper(hooks.AllowPrivateHint[:1]) + hooks.AllowPrivateHint[1:] + "."
}
