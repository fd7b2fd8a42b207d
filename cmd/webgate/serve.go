package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/gateway"
	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/webpage/browser"
)

func serveCommand() command {
	return command{
		name:    "serve",
		summary: "Run the team gateway: the JSON API and MCP over HTTP, with tokens, limits and an audit log",
		run: func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return runServe(ctx, currentHost(), args, stdin, stdout, stderr)
		},
	}
}

var serveDescription = `
Serve runs the team gateway: one server that holds the providers' keys
and answers a team's agents, which hold bearer tokens instead (webgate
token create). It reads the same configuration as the hooks and the CLI
and builds the same providers, page reader and memory; its tokens,
limits, audit log, cache and key health live in the store (store.url),
so several replicas over one Redis serve as one, with no sticky sessions.

Endpoints (all but /healthz and /readyz need "Authorization: Bearer wg_…"):
  POST /v1/search   {"query", "allowed_domains", "blocked_domains",
                    "max_results", "time_range", "topic"}
  POST /v1/fetch    {"url", "prompt"}
  POST /v1/hooks/websearch, /v1/hooks/webfetch
                    a runtime's raw hook payload (Claude Code's and
                    Copilot CLI's HTTP hooks; webgate install --gateway)
                    → the decision JSON the local hook would print
  POST /mcp         web_search and web_fetch over MCP streamable HTTP
  GET  /metrics     Prometheus text format
  GET  /healthz, /readyz

A call past a limit (gateway.limits, gateway.team_limits) is answered 429
with Retry-After; private, loopback and link-local addresses are read
only for the hosts gateway.allow_private names. One JSON log line per
request goes to standard error; the first one ("msg":"listening") names
the address, port included (--listen 127.0.0.1:0 picks a free port). SIGTERM or SIGINT stops accepting
connections and lets the calls under way finish (at most 35s).`

const serveExamples = `  WEBGATE_STORE=redis://redis:6379/0 TAVILY_API_KEY=tvly-… webgate serve --listen :8787
  curl -H "Authorization: Bearer $WEBGATE_GATEWAY_TOKEN" -d '{"query":"go 1.26"}' http://gateway:8787/v1/search`

// Server timeouts of webgate serve.
const (
	serveReadHeaderTimeout = 5 * time.Second
	serveReadTimeout       = 15 * time.Second
	serveIdleTimeout       = 2 * time.Minute
	serveShutdownTimeout   = 35 * time.Second
)

func runServe(ctx context.Context, h hostEnv, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "[flags]", serveDescription, serveExamples, stderr)
	listen := fs.String("listen", "", "listen on `ADDR` (default gateway.listen, else "+config.DefaultGatewayListen+")")
	configFile := fs.String("config", "", "read the configuration from `FILE` instead of WEBGATE_CONFIG or the default location")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "webgate serve: unexpected argument %q\n", pos[0])
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	logger := slog.New(slog.NewJSONHandler(stderr, nil))

	browsers := browser.NewPool(browser.DefaultPoolIdle)
	defer browsers.Close()
	// The memory's provider usage counters, key health and decision log
	// entries are written after the answers, with the settlements and
	// audit entries, not before each answer.
	var afterWrites func(context.Context) error
	tools, cfg, warnings := loadTools(h, overrides{configFile: *configFile, browsers: browsers, afterWrites: &afterWrites})
	for _, w := range warnings {
		logger.Warn("config", slog.String("warning", w))
	}
	st, code := openGatewayStoreOf(ctx, cfg, "serve", stderr)
	if st == nil {
		return code
	}
	defer st.Close()
	addr := *listen
	if addr == "" {
		addr = cfg.Gateway.Listen
	}
	gw := cfg.Gateway
	// The hook endpoints answer with the local warm worker's handler,
	// loading the configuration as the hooks do, from the gateway's
	// environment (and the --config file).
	hookEnv := slices.Clone(h.Env)
	if *configFile != "" {
		hookEnv = append(hookEnv, config.ConfigFileEnv+"="+*configFile)
	}
	warm := hookenv.NewWarm()
	defer warm.Close()
	var oidc *gateway.OIDC
	if o := gw.OIDC; o.Issuer != "" || o.Audience != "" {
		if err := gateway.CheckOIDC(o.Issuer, o.Audience); err != nil {
			fmt.Fprintf(stderr, "webgate serve: gateway.%v\n", err)
			return exitFail
		}
		oidc = &gateway.OIDC{Issuer: o.Issuer, Audience: o.Audience, TeamClaim: o.TeamClaim, Store: st}
	}
	tokens := &gateway.Tokens{Store: st}
	if gw.LimitsFailOpen {
		// Failing open, the gateway still knows the callers it has seen
		// while the store is down.
		tokens.StaleIfError = gateway.DefaultTokenStaleIfError
	}
	handler := gateway.New(gateway.Options{
		Tools:  tools,
		Tokens: tokens,
		OIDC:   oidc,
		Limiter: &gateway.Limiter{Store: st, Token: gatewayLimits(gw.Limits), Team: gatewayLimits(gw.TeamLimits),
			FailOpen: gw.LimitsFailOpen},
		Audit:        &gateway.Audit{Store: st, Clear: gw.AuditClear},
		AllowPrivate: gw.AllowPrivate,
		Hooks:        warm,
		HookEnv:      hookEnv,
		HookCwd:      h.WorkDir,
		Version:      versionString(),
		Logger:       logger,
		AfterWrites:  afterWrites,
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "webgate serve: %v\n", err)
		return exitFail
	}
	fetchTimeout := defaults.Positive(tools.FetchTimeout, webtools.DefaultFetchTimeout)
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: serveReadHeaderTimeout,
		ReadTimeout:       serveReadTimeout,
		WriteTimeout:      fetchTimeout + serveReadTimeout,
		IdleTimeout:       serveIdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	logger.Info("listening", slog.String("addr", ln.Addr().String()), slog.String("store", st.Driver()), slog.String("version", versionString()))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "webgate serve: %v\n", err)
		return exitFail
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), serveShutdownTimeout)
	defer cancel()
	err = srv.Shutdown(sctx)
	// The calls answered leave their settlements and audit entries to be
	// written: write them before the store closes.
	if cerr := handler.Close(sctx); cerr != nil {
		fmt.Fprintf(stderr, "webgate serve: writing the last calls' audit entries: %v\n", cerr)
		return exitFail
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "webgate serve: shutting down: %v\n", err)
		return exitFail
	}
	return exitOK
}

// gatewayLimits maps the configuration's limits onto the gateway's.
func gatewayLimits(l config.GatewayLimits) gateway.Limits {
	return gateway.Limits{RatePerMinute: l.RatePerMinute, RequestsPerDay: l.RequestsPerDay, RequestsPerMonth: l.RequestsPerMonth,
		CreditsPerDay: l.CreditsPerDay, CreditsPerMonth: l.CreditsPerMonth}
}
