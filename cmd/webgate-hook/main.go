// Command webgate-hook is the worker behind webgate's hook binaries: the
// websearch and webfetch fronts run it, with the hook payload on stdin,
// whenever the hook may act on an event. It can also be registered
// directly as "webgate-hook websearch" or "webgate-hook webfetch".
//
// It reads one hook payload on stdin, writes at most one JSON object on
// stdout and always exits 0; see package hooks. When a front ran it and
// hooks.worker is "warm" (the default), it then starts a warm worker in
// the background, "webgate-hook serve [--idle DURATION] SOCKET KEY", which
// answers the fronts' later calls over a Unix socket until it is idle
// (package hooks/worker serves the calls with hookenv.Warm, which keeps
// the configuration, the stores and the browsers between calls). Configuration comes from
// the environment and webgate's configuration file (package config). The
// hook's budget counts from the moment the process starts and covers
// everything, the configuration, key, routes and state files included;
// until the configuration is loaded, the default budget applies. Registered
// directly, it loads the configuration before reading stdin, and waits for
// a stdin left open no longer than the budget (nor 10 s). The
// writes to the store that can wait are made after the answer is written
// (and stdout closed), within store.open_timeout, before it exits.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/hooks/worker"
	"github.com/webgate-dev/webgate/internal/buildinfo"
)

func main() {
	start := time.Now()
	hook := firstArg()
	if hook == "serve" {
		// A daemon keeps only what it opened itself: a descriptor its
		// starter left open would keep that starter's caller waiting for
		// EOF as long as this process runs.
		hookenv.CloseInherited()
	} else {
		// What this process starts (a warm worker, the browser,
		// pdftotext) gets only its standard streams of what the caller
		// left open.
		hookenv.InheritNothing()
	}
	// Run by a front, the budget counts from the front's start.
	t, fronted := worker.FrontStart(os.LookupEnv)
	if fronted && !t.IsZero() {
		start = t
	}
	if base, token := hookenv.Gateway(os.LookupEnv); base != "" && (hook == gate.WebSearch || hook == gate.WebFetch) {
		// A team gateway answers (WEBGATE_GATEWAY_URL): the payload is
		// forwarded as it is, and its answer printed, or nothing.
		os.Exit(forward(hook, base, token, start))
	}
	var h hooks.Handler
	// The configuration the call loaded, to know whether to start a warm
	// worker afterwards.
	var loaded atomic.Pointer[config.Config]
	// Loaded once: the budget is known before stdin is read.
	load := sync.OnceValues(func() (*config.Config, error) {
		c, err := hookenv.LoadCached()
		loaded.Store(c)
		return c, err
	})
	switch hook {
	case "websearch":
		h = hookenv.WebSearchHandler(load)
	case "webfetch":
		h = hookenv.WebFetchHandler(load)
	case "serve":
		os.Exit(serve(os.Args[2:]))
	case "--version", "-version":
		fmt.Printf("webgate-hook (webgate) %s\n", buildinfo.Version())
		os.Exit(0)
	default:
		fmt.Fprintf(os.Stderr, "webgate: webgate-hook needs websearch or webfetch as its argument, not %q; passing through\n", hook)
		// Read the payload (without waiting forever) so that the writer
		// does not see a broken pipe.
		_, _ = gate.ReadPayload(os.Stdin, gate.MaxInputBytes, gate.StdinWait, gate.StdinQuiet)
		os.Exit(0)
	}
	// The writes to the store that can wait (decision log, usage, key
	// health, cache) are made once the answer is written, each within
	// store.open_timeout, before the process exits.
	ctx, afterAnswer := hookenv.AfterAnswer(hooks.WithStart(context.Background(), start))
	if !fronted {
		// Registered directly, it reads stdin itself: a stdin left open is
		// not waited for past the hook's budget. (A front has read it.)
		ctx = hooks.WithInputDeadline(ctx, start.Add(hookenv.Budget(ctx, hook, load, start)))
	}
	code := hooks.Run(ctx, os.Stdin, os.Stdout, os.Stderr, h)
	// The answer is complete: a reader waiting for the end of stdout has it.
	_ = os.Stdout.Close()
	afterAnswer()
	if fronted {
		warmUp(loaded.Load())
	}
	os.Exit(code)
}

// warmUp starts a warm worker for the calls that follow, in the
// background, unless the environment or the configuration turns the warm
// worker off. It is called when a front ran this worker. The answer has
// been written already; a failure only means the next call runs a worker
// too.
func warmUp(cfg *config.Config) {
	if cfg == nil || cfg.WorkerOff() {
		return
	}
	// The path the front ran this worker by, from which it finds the warm
	// worker's socket.
	bin := os.Args[0]
	cwd, err := os.Getwd()
	if err != nil {
		return
	}
	_ = worker.Start(bin, cwd, os.Environ(), cfg.Hooks.WorkerIdle)
}

// serve runs a warm worker: "serve [--idle DURATION] SOCKET KEY".
func serve(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	idle := fs.Duration("idle", worker.DefaultIdle, "exit after this long without a call")
	if err := fs.Parse(args); err != nil || fs.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: webgate-hook serve [--idle DURATION] SOCKET KEY")
		return 2
	}
	exe, _ := os.Executable()
	// Asked to stop, it stops taking calls and finishes the ones under way.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	warm := hookenv.NewWarm()
	defer warm.Close()
	opts := &worker.ServeOptions{Files: worker.Files{Socket: fs.Arg(0)}, Key: fs.Arg(1), Handler: warm, Idle: *idle, Executable: exe, Drain: hookenv.Drain}
	if err := worker.Serve(ctx, opts); err != nil {
		fmt.Fprintf(os.Stderr, "webgate-hook serve: %v\n", err)
		return 1
	}
	return 0
}

// forward sends the payload on stdin to the gateway at base and prints
// its answer, waiting for it within the hook's configured budget; it
// always returns 0 (a hook never blocks by exit code).
func forward(hook, base, token string, start time.Time) int {
	ctx := context.Background()
	load := sync.OnceValues(hookenv.LoadCached)
	budget := hookenv.Budget(ctx, hook, load, start)
	data, err := gate.ReadPayload(os.Stdin, gate.MaxInputBytes, gate.StdinWaitWithin(start, budget), gate.StdinQuiet)
	if err != nil {
		fmt.Fprintf(os.Stderr, "webgate: %v (the %s hook's budget is %v); passing through\n", err, hook, budget)
		return 0
	}
	if hook == gate.WebFetch {
		// The gateway cannot read the user's Claude Code settings: a page
		// one of their deny rules forbids is not sent to it to be read.
		if in, err := hooks.ParseInput(data); err == nil {
			if cfg, _ := load(); cfg != nil {
				s := hookenv.Settings(cfg, budget, cfg.Hooks.WebSearch.ToolNames, cfg.Hooks.WebFetch.ToolNames)
				if r, denied := hooks.FetchDenied(in, s); denied {
					fmt.Fprintf(os.Stderr, "webgate: %s forbids fetching this page: it is not sent to the gateway to be read, and Claude Code refuses the native %s by that rule; passing through\n", r, in.ToolName)
					return 0
				}
			}
		}
	}
	out, diag := hookenv.Forward(ctx, hook, data, base, token, start, budget)
	_, _ = os.Stdout.Write(out)
	fmt.Fprint(os.Stderr, diag)
	return 0
}

func firstArg() string {
	if len(os.Args) > 1 {
		return os.Args[1]
	}
	return ""
}
