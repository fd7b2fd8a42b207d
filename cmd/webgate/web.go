package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks/hookenv"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/internal/webtools"
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
//	   auth-failed, credit-or-quota-failed, transient-provider-failed,
//	   unknown)
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
     transient-provider-failed or unknown, as the message says)
  5  not configured: no provider has an API key`

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
	return exitFail
}

// overrides are command-line changes to the loaded configuration.
type overrides struct {
	configFile      string
	mode            string
	searchProviders []string
	extractProvider []string
}

// loadTools loads the configuration from h, applies o, and builds the
// webtools.Tools every web command uses. Configuration problems are
// returned as warnings: unlike the hooks, which step aside, the commands
// carry on with what is valid.
func loadTools(h hostEnv, o overrides) (*webtools.Tools, *config.Config, []string) {
	cfg, err := h.loadConfig(o.configFile)
	warnings := config.Problems(err)
	if o.mode != "" {
		cfg.Search.Mode = o.mode
	}
	if len(o.searchProviders) > 0 {
		cfg.Search.Providers, cfg.Search.Primary = o.searchProviders, ""
	}
	if len(o.extractProvider) > 0 {
		cfg.Extract.Providers, cfg.Extract.Primary = o.extractProvider, ""
	}
	t, more := buildTools(cfg)
	return t, cfg, append(warnings, more...)
}

// buildTools builds the tools from a loaded configuration with the hooks'
// own builders (package hookenv) and the configured docs and tool routes.
func buildTools(cfg *config.Config) (*webtools.Tools, []string) {
	ws := hookenv.WebSearch(cfg, nil)
	wf := hookenv.WebFetch(cfg, nil)
	rs := loadRouteSet(cfg)
	t := &webtools.Tools{
		Searcher:    ws.Searcher,
		Extractor:   wf.Extractor,
		Probe:       wf.Probe,
		Classify:    wf.Classify,
		Docs:        rs.Docs,
		Routes:      rs.Tools,
		MaxResults:  cfg.Search.MaxResults,
		SearchHint:  keyHint(searchHintOrder(cfg)),
		ExtractHint: keyHint(cfg.Extract.Order()),
		Secrets:     cfg.Secrets(),
	}
	var warnings []string
	for _, w := range slices.Concat(ws.Problems, wf.Problems, rs.Warnings) {
		if !slices.Contains(warnings, w) {
			warnings = append(warnings, w)
		}
	}
	return t, warnings
}

// searchHintOrder is the search order whose keys would make search work:
// the configured order, plus Exa when no source set search.providers
// (configuration appends Exa to the default order once it has keys).
func searchHintOrder(cfg *config.Config) []string {
	names := cfg.Search.Order()
	if cfg.Origin("search.providers") == "default" && !slices.Contains(names, config.Exa) {
		names = append(names, config.Exa)
	}
	return names
}

// keyHint says which environment variables give the named providers
// their keys.
func keyHint(names []string) string {
	byKey := map[string]config.Setting{}
	for _, s := range config.Settings() {
		byKey[s.Key] = s
	}
	var vars []string
	for _, n := range names {
		s, ok := byKey["providers."+n+".keys"]
		if !ok {
			continue
		}
		v := s.Env
		if len(s.Legacy) > 0 {
			v = s.Legacy[0]
		}
		if v != "" && !slices.Contains(vars, v) {
			vars = append(vars, v)
		}
	}
	if len(vars) == 0 {
		return ""
	}
	return "Set " + orList(vars) + " in webgate's environment (for an MCP server, in its \"env\"), or the provider keys in webgate's configuration file."
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
		fmt.Fprintf(stderr, "webgate %s: warning: %s\n", cmd, sanitize.Line(w))
	}
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

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
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
		for i := 0; ; i++ {
			fmt.Fprintf(w, "\r%s %s…", marks[i%len(marks)], label)
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

// jsonError is the --json form of a failure.
type jsonError struct {
	Error struct {
		Reason   webtools.Reason    `json:"reason"`
		Class    string             `json:"class,omitempty"`
		Message  string             `json:"message"`
		Failures []webtools.Failure `json:"failed_providers,omitempty"`
		TimedOut bool               `json:"timed_out,omitempty"`
	} `json:"error"`
}

func jsonErrorOf(err error) jsonError {
	var j jsonError
	var e *webtools.Error
	if errors.As(err, &e) {
		j.Error.Reason, j.Error.Class, j.Error.Failures, j.Error.TimedOut = e.Reason, string(e.Class), e.Failures, e.TimedOut
	} else {
		j.Error.Reason = "unknown"
	}
	j.Error.Message = sanitize.Line(err.Error())
	return j
}
