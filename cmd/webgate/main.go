// Command webgate is the command-line front end of webgate: it classifies
// pages and, through further subcommands, installs and inspects the hooks.
//
// Usage:
//
//	webgate <command> [flags] [args]
//	webgate help [command]
//	webgate --version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/webgate-dev/webgate/cmd/internal/hookenv"
	"github.com/webgate-dev/webgate/internal/buildinfo"
)

// Exit codes shared by all commands.
const (
	exitOK    = 0 // success
	exitFail  = 1 // the command ran but something failed (unreadable file, …)
	exitUsage = 2 // bad command line
)

// command is one subcommand. run receives the arguments after the command
// name and returns the process exit code; it must not call os.Exit and must
// write only to the given streams, so tests can drive it with buffers.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// onHost returns a command's run function that runs run on this machine's
// host ([currentHost]); tests call run with a host of their own.
func onHost(run func(ctx context.Context, h hostEnv, args []string, stdin io.Reader, stdout, stderr io.Writer) int) func(context.Context, []string, io.Reader, io.Writer, io.Writer) int {
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		return run(ctx, currentHost(), args, stdin, stdout, stderr)
	}
}

// commands lists every subcommand. To add one, write its constructor in its
// own file (see classify.go) and add one line here.
func commands() []command {
	cmds := []command{
		classifyCommand(),
		installCommand(),
		uninstallCommand(),
		searchCommand(),
		fetchCommand(),
		mcpCommand(),
		doctorCommand(),
		explainCommand(),
		routesCommand(),
		cacheCommand(),
		statsCommand(),
		logCommand(),
		setupCommand(),
		completionCommand(),
		serveCommand(),
		tokenCommand(),
		auditCommand(),
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	return cmds
}

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "serve" || os.Args[1] == "mcp") {
		// A server keeps only what it opened itself: a descriptor its
		// starter left open would keep that starter's caller waiting for
		// EOF as long as it runs, and reach what it starts.
		hookenv.CloseInherited()
	} else {
		// What a command starts (the browser, pdftotext) gets only its
		// standard streams of what the caller left open.
		hookenv.InheritNothing()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if args[0] == "help" && len(args) > 1 {
			c, ok := lookup(args[1])
			if !ok {
				fmt.Fprintf(stderr, "webgate: unknown command %q%s\n", args[1], didYouMean(args[1], commandNames(), ""))
				return exitUsage
			}
			return c.run(ctx, []string{"-h"}, stdin, stdout, stderr)
		}
		usage(stdout)
		return exitOK
	case "version", "-version", "--version":
		fmt.Fprintf(stdout, "webgate %s\n", versionString())
		return exitOK
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "webgate: unknown command %q%s\nRun 'webgate help' for the list of commands.\n", args[0], didYouMean(args[0], commandNames(), ""))
		return exitUsage
	}
	return c.run(ctx, args[1:], stdin, stdout, stderr)
}

// commandNames lists the commands' names, for suggestions.
func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "webgate %s: web search and page reading for coding agents\n\n", versionString())
	fmt.Fprintf(w, "Usage:\n  webgate <command> [flags] [args]\n\nCommands:\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range commands() {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	fmt.Fprintf(tw, "  help\tShow help for webgate or a command\n")
	tw.Flush()
	fmt.Fprintf(w, "\nRun 'webgate help <command>' or 'webgate <command> --help' for details.\n")
	fmt.Fprintf(w, "Flags:\n  --version  print the version and exit\n")
}

func versionString() string { return buildinfo.Version() }

// newFlagSet returns a FlagSet for a subcommand whose help shows the usage
// line, a description, the flags (as --name) and examples. A bad flag gets
// a short usage instead (see parseArgs).
func newFlagSet(name, usageLine, description, examples string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("webgate "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: webgate %s %s\n\n%s\n\nFlags:\n", name, usageLine, strings.TrimSpace(description))
		printFlags(w, fs)
		if examples != "" {
			fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(examples, "\n"))
		}
	}
	usageLines.Store(fs, usageLine)
	return fs
}

// usageLines holds each FlagSet's usage line, for the short usage of a
// bad command line.
var usageLines sync.Map

// printFlags lists fs's flags as the help shows them: "--name VALUE", then
// the usage and the default on the next line. A default is said once: not
// when it is the zero value, nor when the usage already says what the
// default is.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if len(f.Name) == 1 {
			line = "  -" + f.Name
		}
		if name != "" {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n        %s", line, strings.ReplaceAll(usage, "\n", "\n        "))
		if d := f.DefValue; !zeroDefault(d) && !saysDefault(usage) {
			fmt.Fprintf(w, " (default %s)", d)
		}
		fmt.Fprintln(w)
	})
}

// zeroDefault reports whether a flag's default is its type's zero value,
// which the help leaves unsaid: no text, no number, no duration, no list,
// false.
func zeroDefault(d string) bool {
	switch d {
	case "", "false", "0", "0s", "[]":
		return true
	}
	return false
}

// saysDefault reports whether a flag's usage says what its default is
// ("(default 25s)", "default: the current directory").
func saysDefault(usage string) bool {
	return strings.Contains(usage, "(default") || strings.Contains(usage, "default:") || strings.Contains(usage, "; default ")
}

// shortUsage explains a bad command line for fs in three lines: the
// problem with a suggestion, the usage line, and where the help is.
func shortUsage(w io.Writer, fs *flag.FlagSet, err error) {
	cmd := strings.TrimPrefix(fs.Name(), "webgate ")
	msg := err.Error()
	const undefined = "flag provided but not defined: "
	if bad, ok := strings.CutPrefix(msg, undefined); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg = "unknown flag " + bad + didYouMean(strings.TrimLeft(bad, "-"), names, "--")
	}
	fmt.Fprintf(w, "webgate %s: %s\n", cmd, msg)
	if u, ok := usageLines.Load(fs); ok {
		fmt.Fprintf(w, "Usage: webgate %s %s\n", cmd, u)
	}
	fmt.Fprintf(w, "Run 'webgate %s --help' for the flags and examples.\n", cmd)
}

// didYouMean returns " (did you mean PREFIX+name?)" for the name among
// names closest to got (at most two edits, or got a prefix of it), or "".
func didYouMean(got string, names []string, prefix string) string {
	best, bestD := "", 3
	for _, n := range names {
		d := editDistance(strings.ToLower(got), strings.ToLower(n))
		if strings.HasPrefix(n, got) && len(got) >= 2 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + prefix + best + "?)"
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// parseArgs parses flags that may appear before, between or after
// positional arguments (webgate classify a.html -v) and returns the
// positional ones. Everything after "--" is positional. A help request
// (-h, -help, --help) prints the usage to stdout and returns flag.ErrHelp;
// other errors are explained on the FlagSet's output (stderr).
func parseArgs(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	var pos, rest []string
	for i, a := range args {
		if a == "--" {
			rest = args[i+1:]
			args = args[:i]
			break
		}
	}
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(stdout)
			fs.Usage()
			return nil, flag.ErrHelp
		}
	}
	for {
		if err := parseQuietly(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	return append(pos, rest...), nil
}

// parseQuietly parses args with fs, explaining a bad command line with a
// short usage (shortUsage) rather than the whole help.
func parseQuietly(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		shortUsage(out, fs, err)
	}
	return err
}

// configUsage is the usage of the --config flag of every command that
// reads the configuration.
const configUsage = "read this configuration `file` instead of WEBGATE_CONFIG or the default location"

// parseFlags parses args for a command that takes flags only. It returns
// ok false, with the exit code, when the command is done: help was asked
// for, a flag is bad, or an argument is left over (said on stderr).
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	rest, err := parseArgs(fs, args, stdout)
	if err != nil {
		return flagExit(err), false
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), rest[0])
		return exitUsage, false
	}
	return exitOK, true
}

// flagExit maps a flag parsing error to an exit code: 0 for --help, 2 for
// anything else (the FlagSet has already explained the problem).
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// quietFlag adds --quiet to fs, for search and fetch. Once fs is parsed,
// the function it returns gives the command's stderr: w itself, or
// [errorsOnly] of w when --quiet was given.
func quietFlag(fs *flag.FlagSet) func(w io.Writer) io.Writer {
	quiet := fs.Bool("quiet", false, "print no warnings or progress on standard error, only errors")
	return func(w io.Writer) io.Writer {
		if *quiet {
			return errorsOnly(w)
		}
		return w
	}
}
