package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/webgate-dev/webgate/assemble"
	"github.com/webgate-dev/webgate/cmd/internal/setup"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/internal/textfmt"
	"github.com/webgate-dev/webgate/provider"
)

// exitInterrupted is the exit code of a setup stopped by Ctrl-C (128 +
// SIGINT, as shells report it).
const exitInterrupted = 130

func setupCommand() command {
	return command{
		name:    "setup",
		summary: "Set webgate up step by step: provider keys (checked live), the agents to register with, then doctor",
		run:     runSetupCommand,
	}
}

const setupDescription = `
Setup is the first run: it asks which providers to use (and shows what
each receives), takes each key and checks it with one small search at the
provider, stores it, registers webgate with the agents you choose, and
ends with 'webgate doctor'.

A key is stored in one of three ways:
  in the configuration file   pasted at a prompt that does not echo it, and
                              kept in webgate's configuration file
                              (~/.config/webgate/config.toml, or the file
                              WEBGATE_CONFIG names), written with mode 0600;
                              every other byte of an existing file is kept,
                              and a backup is written next to it
  in an environment variable  the provider's own variable (TAVILY_API_KEY,
                              …) or WEBGATE_PROVIDERS_<NAME>_KEYS: nothing is
                              written, keep it exported where your agents run
  in a key file               one key per line, or a JSON array; the file's
                              path is kept in the configuration file
SearXNG takes no key: setup asks for your instance's URL instead.

A key the provider refuses is asked for again; a key that is valid but out
of credits, or that could not be checked (no network), is kept only if you
say so. Keys are never shown, printed or put in a message. Nothing is
written before the last question is answered; Ctrl-C before then leaves
every file as it was, and each file is replaced whole, never half-written.

Without a terminal, give the answers as flags with --non-interactive.
--key-file and --key-env take a path or a variable name when one provider
needs a key, or NAME=PATH and NAME=VAR for each of several. A provider
given without either reads its own variable (TAVILY_API_KEY, …) when it is
set, or keeps the keys it has. --key-env naming another variable copies its
value into the configuration file, since webgate reads only its own names.

Exit status: 0 when everything was set up and doctor found nothing broken,
1 when a key was refused, a file could not be written or doctor failed, 2
for a bad command line or no terminal without --non-interactive, 130 when
interrupted.`

const setupExamples = `  webgate setup
  webgate setup --non-interactive --provider tavily --key-env TAVILY_API_KEY --target claude-code
  webgate setup --non-interactive --provider tavily --key-file ~/.config/webgate/tavily.keys --target codex
  webgate setup --non-interactive --key-env tavily=TAVILY_API_KEY --key-env exa=EXA_API_KEY --target claude-code --target gemini-cli
  webgate setup --non-interactive --provider searxng --searxng-url http://127.0.0.1:8888 --no-validate`

// setupTargets are the agents setup offers, in order. VS Code reads the
// Claude Code settings, so it needs no entry of its own.
var setupTargets = []setup.Target{setup.ClaudeCode, setup.CopilotCLI, setup.GeminiCLI, setup.Codex}

// setupOpts are setup's flags.
type setupOpts struct {
	nonInteractive, noValidate bool
	providers, targets         stringList
	keyFiles, keyEnvs          stringList
	searxngURL                 string
}

// How a provider's key is kept.
type keyStore int

const (
	storeKeep    keyStore = iota // as the configuration already has it
	storeFile                    // the key itself, in the configuration file
	storeEnv                     // read from an environment variable webgate knows
	storeKeyFile                 // the path of a key file, in the configuration file
	storeURL                     // SearXNG: the instance's URL
)

// providerAnswer is what setup settled for one provider.
type providerAnswer struct {
	backend config.Backend
	store   keyStore
	// value is what goes into the configuration file: the key (storeFile,
	// never printed), the key file's path or the instance's URL.
	value string
	// envVar names the variable the key is read from (storeEnv), or the
	// one it was copied from (storeFile with --key-env).
	envVar string
}

// settings returns what the answer writes into the configuration file.
func (a providerAnswer) settings() []setup.ConfigSetting {
	switch a.store {
	case storeFile, storeKeyFile:
		return []setup.ConfigSetting{{Key: "providers." + a.backend.Name + ".keys", Value: a.value}}
	case storeURL:
		return []setup.ConfigSetting{{Key: "providers." + a.backend.Name + ".base_url", Value: a.value}}
	}
	return nil
}

// errSetupInput is returned when standard input ends before an answer.
var errSetupInput = errors.New("the input ended before setup was done")

// usageError is a bad command line, worded for the user.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// setupRun is one run of webgate setup.
type setupRun struct {
	ctx     context.Context
	host    hostEnv
	opts    setupOpts
	out     io.Writer // scrubbed of every key setup has seen
	errOut  io.Writer
	secrets *secretSet
	in      *terminalInput // nil without a terminal
	cfgPath string         // the configuration file setup writes
	cfg     *config.Config
	cfgErr  error
	reg     *config.Registry
}

func runSetupCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("setup", "[flags]", setupDescription, setupExamples, stderr)
	var o setupOpts
	fs.BoolVar(&o.nonInteractive, "non-interactive", false, "ask nothing: take every answer from the flags (for scripts)")
	fs.Var(&o.providers, "provider", "the `name` of a provider to set up: "+strings.Join(config.Providers().Names(), ", ")+" (repeatable)")
	fs.Var(&o.keyFiles, "key-file", "read the key from this `file` (one key per line, or a JSON array); NAME=PATH for one of several providers")
	fs.Var(&o.keyEnvs, "key-env", "read the key from this environment `variable`; NAME=VAR for one of several providers")
	fs.StringVar(&o.searxngURL, "searxng-url", "", "the `URL` of your SearXNG instance (with --provider searxng)")
	fs.Var(&o.targets, "target", "the `name` of an agent to register webgate with: "+targetNames()+", or all: claude-code and copilot-cli, with gemini-cli and codex when found on this machine (repeatable)")
	fs.BoolVar(&o.noValidate, "no-validate", false, "keep the keys without checking them at the provider")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	secrets := &secretSet{}
	s := &setupRun{
		ctx: ctx, host: currentHost(), opts: o, secrets: secrets,
		out:    &secretWriter{w: stdout, secrets: secrets},
		errOut: &secretWriter{w: stderr, secrets: secrets},
		reg:    config.Providers(),
	}
	if !o.nonInteractive {
		f, ok := stdin.(*os.File)
		if !ok || !term.IsTerminal(int(f.Fd())) {
			fmt.Fprint(stderr, `webgate setup: standard input is not a terminal, so setup cannot ask its questions.
Run it in a terminal, or give the answers as flags with --non-interactive, for example:
  webgate setup --non-interactive --provider tavily --key-env TAVILY_API_KEY --target claude-code
'webgate setup --help' lists the flags.
`)
			return exitUsage
		}
		s.in = &terminalInput{f: f, fd: int(f.Fd())}
		if state, err := term.GetState(s.in.fd); err == nil {
			// A key prompt turns echo off; an interrupt must not leave the
			// terminal that way.
			defer func() { _ = term.Restore(s.in.fd, state) }()
		}
	}
	return s.run()
}

// run runs the steps and returns the exit code.
func (s *setupRun) run() int {
	interrupted := func(wrote bool) int {
		if wrote {
			fmt.Fprintln(s.out, "\nInterrupted. The files named above were written whole; nothing else was changed.")
		} else {
			fmt.Fprintln(s.out, "\nInterrupted: nothing was written.")
		}
		return exitInterrupted
	}
	fail := func(err error) int {
		var ue *usageError
		switch {
		case s.ctx.Err() != nil:
			return interrupted(false)
		case errors.As(err, &ue):
			fmt.Fprintf(s.errOut, "webgate setup: %s\n", ue.msg)
			return exitUsage
		}
		fmt.Fprintf(s.errOut, "webgate setup: %v\nNothing was written.\n", err)
		return exitFail
	}

	path, err := s.configPath()
	if err != nil {
		return fail(err)
	}
	s.cfgPath = path
	s.cfg, s.cfgErr = s.loadConfig(nil)
	if s.interactive() {
		fmt.Fprintf(s.out, "webgate setup: providers and keys, the agents to register with, then a check.\nKeys are kept in %s (mode 0600) unless you choose otherwise. Ctrl-C stops without writing anything.\n", s.cfgPath)
	}
	if ps := config.Problems(s.cfgErr); len(ps) > 0 {
		fmt.Fprintf(s.out, "Note: the configuration has problems that doctor will list:\n")
		for _, p := range ps {
			fmt.Fprintf(s.out, "  %s\n", p)
		}
	}

	// Every flag is checked before a provider is called.
	targets, err := s.targetFlags()
	if err != nil {
		return fail(err)
	}
	answers, err := s.chooseProviders()
	if err != nil {
		return fail(err)
	}
	if len(targets) == 0 && s.interactive() {
		if targets, err = s.askTargets(); err != nil {
			return fail(err)
		}
	}
	var settings []setup.ConfigSetting
	for _, a := range answers {
		settings = append(settings, a.settings()...)
	}
	var edit *setup.ConfigEdit
	if len(settings) > 0 {
		if edit, err = setup.PlanConfig(s.cfgPath, settings); err != nil {
			return fail(err)
		}
	}
	if s.interactive() {
		s.summary(answers, edit, targets)
		ok, err := s.yesNo("Go ahead? [Y/n] ", true)
		if err != nil {
			return fail(err)
		}
		if !ok {
			fmt.Fprintln(s.out, "Nothing was written.")
			return exitOK
		}
	}
	if s.ctx.Err() != nil {
		return interrupted(false)
	}

	code := exitOK
	wrote := false
	if edit != nil && edit.Changed() {
		backup, err := edit.Apply(nil)
		if err != nil {
			fmt.Fprintf(s.errOut, "webgate setup: %v\n", err)
			return exitFail
		}
		wrote = true
		fmt.Fprintf(s.out, "\nConfiguration: %s written (mode 0600)\n", s.cfgPath)
		if backup != "" {
			fmt.Fprintf(s.out, "  backup: %s\n", backup)
		}
	}
	s.notes(answers)
	if s.ctx.Err() != nil {
		return interrupted(wrote)
	}
	if len(targets) > 0 {
		if !s.install(targets) {
			code = exitFail
		}
	}
	if s.ctx.Err() != nil {
		return interrupted(true)
	}
	fmt.Fprintln(s.out, "\nChecking the whole setup with 'webgate doctor':")
	fmt.Fprintln(s.out)
	if runDoctor(s.ctx, nil, nil, s.out, s.errOut) != exitOK {
		code = exitFail
	}
	return code
}

func (s *setupRun) interactive() bool { return s.in != nil }

// configPath returns the configuration file setup writes: the one
// WEBGATE_CONFIG names, else the first of config.toml, config.yaml,
// config.yml and config.json in $XDG_CONFIG_HOME/webgate (or
// ~/.config/webgate), else config.toml there. It must be TOML.
func (s *setupRun) configPath() (string, error) {
	var path string
	if p := strings.TrimSpace(s.host.getenv(config.ConfigFileEnv)); p != "" {
		path = expandUserPath(p, s.host)
	} else {
		dir := ""
		if x := s.host.getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
			dir = filepath.Join(x, "webgate")
		} else if s.host.Home != "" {
			dir = filepath.Join(s.host.Home, ".config", "webgate")
		} else {
			return "", errors.New("cannot find your home directory: set WEBGATE_CONFIG to the configuration file to write")
		}
		path = filepath.Join(dir, "config.toml")
		for _, n := range config.DefaultFileNames {
			if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && !fi.IsDir() {
				path = filepath.Join(dir, n)
				break
			}
		}
	}
	if !strings.EqualFold(filepath.Ext(path), ".toml") {
		return "", fmt.Errorf("webgate's configuration file is %s; setup edits TOML files only: set the keys there by hand (see 'Configuration' in the README), or point WEBGATE_CONFIG at a .toml file", path)
	}
	return path, nil
}

// loadConfig loads the configuration as webgate will, with extra
// variables over the environment.
func (s *setupRun) loadConfig(extra []string) (*config.Config, error) {
	file := ""
	if fi, err := os.Stat(s.cfgPath); err == nil && !fi.IsDir() {
		file = s.cfgPath
	}
	env := append(slices.Clone(s.host.Env), extra...)
	cfg, err := config.Load(&config.LoadOptions{Env: env, HomeDir: s.host.Home, ConfigFile: file})
	if cfg == nil {
		cfg = config.Default()
	}
	return cfg, err
}

// chooseProviders settles the providers and their keys.
func (s *setupRun) chooseProviders() ([]providerAnswer, error) {
	keyFiles, err := s.perProvider(s.opts.keyFiles, "--key-file")
	if err != nil {
		return nil, err
	}
	keyEnvs, err := s.perProvider(s.opts.keyEnvs, "--key-env")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range s.opts.providers {
		b, ok := s.lookupProvider(p)
		if !ok {
			return nil, &usageError{fmt.Sprintf("unknown --provider %q (want one of %s)", p, strings.Join(s.reg.Names(), ", "))}
		}
		names = appendNew(names, b.Name)
	}
	for n := range keyFiles {
		if n != "" {
			names = appendNew(names, n)
		}
	}
	for n := range keyEnvs {
		if n != "" {
			names = appendNew(names, n)
		}
	}
	if s.opts.searxngURL != "" {
		names = appendNew(names, config.SearXNG)
	}
	if len(names) == 0 && s.interactive() {
		if names, err = s.askProviders(); err != nil {
			return nil, err
		}
	}
	// A key flag without a provider's name belongs to the one chosen
	// provider that takes a key.
	var keyed []string
	for _, n := range names {
		if b, _ := s.reg.Lookup(n); !b.NoKey {
			keyed = append(keyed, n)
		}
	}
	for _, m := range []map[string]string{keyFiles, keyEnvs} {
		if v, ok := m[""]; ok {
			switch {
			case len(keyed) == 0:
				return nil, &usageError{"say whose key it is: add --provider NAME, or write --key-env NAME=VAR (--key-file NAME=PATH)"}
			case len(keyed) > 1:
				return nil, &usageError{"with several providers, say whose key it is: --key-env NAME=VAR (--key-file NAME=PATH)"}
			}
			m[keyed[0]] = v
			delete(m, "")
		}
	}
	var answers []providerAnswer
	for _, n := range names {
		if err := s.ctx.Err(); err != nil {
			return nil, err
		}
		b, _ := s.reg.Lookup(n)
		var a *providerAnswer
		switch {
		case b.NoKey:
			a, err = s.instanceURL(b)
		case keyFiles[n] != "" && keyEnvs[n] != "":
			return nil, &usageError{fmt.Sprintf("%s has both --key-file and --key-env: give one", n)}
		case keyFiles[n] != "":
			a, err = s.fromKeyFile(b, keyFiles[n])
		case keyEnvs[n] != "":
			a, err = s.fromEnv(b, keyEnvs[n])
		case s.interactive():
			a, err = s.askKey(b)
		default:
			a, err = s.defaultKey(b)
		}
		if err != nil {
			return nil, err
		}
		if a != nil {
			answers = append(answers, *a)
		}
	}
	return answers, nil
}

// perProvider splits NAME=VALUE flag values by provider; a value without
// a provider's name is under "".
func (s *setupRun) perProvider(values []string, flagName string) (map[string]string, error) {
	m := map[string]string{}
	for _, v := range values {
		name, rest, ok := strings.Cut(v, "=")
		if b, known := s.lookupProvider(name); ok && known {
			name, v = b.Name, rest
		} else {
			name = ""
		}
		if _, dup := m[name]; dup {
			return nil, &usageError{fmt.Sprintf("%s given twice for the same provider", flagName)}
		}
		if strings.TrimSpace(v) == "" {
			return nil, &usageError{fmt.Sprintf("%s needs a value", flagName)}
		}
		m[name] = strings.TrimSpace(v)
	}
	return m, nil
}

// lookupProvider finds a provider by name, case-insensitively.
func (s *setupRun) lookupProvider(name string) (config.Backend, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	return s.reg.Lookup(name)
}

// askProviders lists the providers and asks which to set up.
func (s *setupRun) askProviders() ([]string, error) {
	all := s.reg.All()
	fmt.Fprintln(s.out, "\nProviders (each is sent only what its line says):")
	for i, b := range all {
		var does []string
		if b.Search {
			does = append(does, "search")
		}
		if b.Extract {
			does = append(does, "page reading")
		}
		needs := "API key"
		if b.NoKey {
			needs = "no key: your instance's URL"
		}
		state := ""
		switch {
		case s.cfg.KeyCount(b.Name) > 0:
			state = fmt.Sprintf("  [has %s: %s]", plural(s.cfg.KeyCount(b.Name), "key"), s.cfg.Origin("providers."+b.Name+".keys"))
		case b.NoKey && s.cfg.Usable(b.Name, true):
			state = "  [instance set]"
		}
		fmt.Fprintf(s.out, "  %d. %-24s %s; %s; receives %s%s\n", i+1, b.Title, strings.Join(does, " and "), needs, b.Receives, state)
	}
	for {
		line, err := s.ask("Choose providers by number or name, separated by spaces or commas (Enter: none): ")
		if err != nil {
			return nil, err
		}
		if line == "" {
			if len(s.cfg.Configured()) == 0 {
				fmt.Fprintln(s.out, "No provider chosen: until one has a key, the hooks step aside to the agents' own tools.")
			}
			return nil, nil
		}
		var names []string
		bad := ""
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			if i, err := strconv.Atoi(f); err == nil && i >= 1 && i <= len(all) {
				names = appendNew(names, all[i-1].Name)
				continue
			}
			if b, ok := s.lookupProvider(f); ok {
				names = appendNew(names, b.Name)
				continue
			}
			bad = f
			break
		}
		if bad != "" {
			fmt.Fprintf(s.out, "%q is not a provider: give numbers from 1 to %d, or names such as %s.\n", sanitize.Line(bad), len(all), all[0].Name)
			continue
		}
		return names, nil
	}
}

// keyEnvNames returns the variables webgate reads a provider's keys from,
// the provider's usual one first.
func keyEnvNames(b config.Backend) []string {
	var out []string
	if st, ok := config.SettingByKey("providers." + b.Name + ".keys"); ok {
		if st.Env != "" {
			out = append(out, st.Env)
		}
		out = append(out, st.Legacy...)
	}
	if b.KeyEnv != "" {
		out = append([]string{b.KeyEnv}, slices.DeleteFunc(out, func(n string) bool { return n == b.KeyEnv })...)
	}
	return out
}

// askKey asks how the provider's key is to be kept, and the key.
func (s *setupRun) askKey(b config.Backend) (*providerAnswer, error) {
	envs := keyEnvNames(b)
	usual := ""
	if len(envs) > 0 {
		usual = envs[0]
	}
	fmt.Fprintf(s.out, "\n%s receives %s.\n", b.Title, b.Receives)
	for {
		type option struct {
			label string
			store keyStore
		}
		var opts []option
		if n := s.cfg.KeyCount(b.Name); n > 0 {
			opts = append(opts, option{fmt.Sprintf("keep the %s it has (%s)", plural(n, "key"), s.cfg.Origin("providers."+b.Name+".keys")), storeKeep})
		}
		opts = append(opts,
			option{"paste the key now; it is kept in " + s.cfgPath + ", readable by you only", storeFile},
			option{"read it from an environment variable (" + strings.Join(envs, " or ") + ")", storeEnv},
			option{"read it from a key file (one key per line, or a JSON array)", storeKeyFile},
			option{"skip " + b.Title, -1},
		)
		fmt.Fprintf(s.out, "How should webgate find the %s key?\n", b.Title)
		for i, o := range opts {
			fmt.Fprintf(s.out, "  %d. %s\n", i+1, o.label)
		}
		n, err := s.choose(fmt.Sprintf("Choose 1-%d [1]: ", len(opts)), len(opts), 1)
		if err != nil {
			return nil, err
		}
		var a *providerAnswer
		switch opts[n-1].store {
		case -1:
			fmt.Fprintf(s.out, "%s skipped.\n", b.Title)
			return nil, nil
		case storeKeep:
			return s.keep(b)
		case storeFile:
			a, err = s.pasteKey(b)
		case storeEnv:
			name, err2 := s.ask(fmt.Sprintf("Variable name [%s]: ", usual))
			if err2 != nil {
				return nil, err2
			}
			if name == "" {
				name = usual
			}
			if !slices.Contains(envs, name) {
				fmt.Fprintf(s.out, "webgate reads the %s key from %s only; export the key under one of those names.\n", b.Title, strings.Join(envs, " or "))
				continue
			}
			a, err = s.fromEnv(b, name)
		case storeKeyFile:
			p, err2 := s.ask("Path of the key file: ")
			if err2 != nil {
				return nil, err2
			}
			if p == "" {
				continue
			}
			a, err = s.fromKeyFile(b, p)
		}
		var ue *usageError
		if errors.As(err, &ue) {
			// The variable or the file holds no usable key: say so and
			// ask again.
			fmt.Fprintln(s.out, ue.msg)
			continue
		}
		if err != nil {
			return nil, err
		}
		if a != nil {
			return a, nil
		}
	}
}

// pasteKey reads a key without echo until the provider accepts one (or
// the user keeps one it could not check); nil when the user gives up.
func (s *setupRun) pasteKey(b config.Backend) (*providerAnswer, error) {
	for {
		key, err := s.secret(fmt.Sprintf("Paste the %s key (it is not shown; Enter alone goes back): ", b.Title))
		if err != nil {
			return nil, err
		}
		if key == "" {
			return nil, nil
		}
		s.secrets.add(key)
		ok, err := s.accept(b, "the key", key)
		if err != nil {
			return nil, err
		}
		if ok {
			return &providerAnswer{backend: b, store: storeFile, value: key}, nil
		}
	}
}

// fromEnv takes the key from a variable: a reference when webgate reads
// that variable, else a copy into the configuration file.
func (s *setupRun) fromEnv(b config.Backend, name string) (*providerAnswer, error) {
	val := strings.TrimSpace(s.host.getenv(name))
	if val == "" {
		return nil, &usageError{fmt.Sprintf("%s is not set in this environment: export it (in your shell profile, so that your agents see it too) and run setup again, or choose another way", name)}
	}
	for _, k := range strings.Split(val, "|") {
		s.secrets.add(strings.TrimSpace(k))
	}
	a := &providerAnswer{backend: b, store: storeEnv, envVar: name}
	if !slices.Contains(keyEnvNames(b), name) {
		a.store, a.value = storeFile, val
	}
	ok, err := s.accept(b, "the key in "+name, val)
	if err != nil || !ok {
		if err == nil && !s.interactive() {
			err = fmt.Errorf("%s: the key in %s was not kept", b.Name, name)
		}
		return nil, err
	}
	return a, nil
}

// fromKeyFile takes the keys from a key file, whose path is kept.
func (s *setupRun) fromKeyFile(b config.Backend, path string) (*providerAnswer, error) {
	path = expandUserPath(path, s.host)
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.host.WorkDir, path)
	}
	keys, err := provider.ParseKeys(path)
	if err != nil {
		return nil, &usageError{err.Error()}
	}
	if len(keys) == 0 {
		return nil, &usageError{fmt.Sprintf("%s holds no key", path)}
	}
	for _, k := range keys {
		s.secrets.add(k)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(s.out, "Note: other users may read %s (mode %04o): 'chmod 600 %s'.\n", path, fi.Mode().Perm(), path)
	}
	ok, err := s.accept(b, "the key file", path)
	if err != nil || !ok {
		if err == nil && !s.interactive() {
			err = fmt.Errorf("%s: the keys in %s were not kept", b.Name, path)
		}
		return nil, err
	}
	return &providerAnswer{backend: b, store: storeKeyFile, value: path}, nil
}

// defaultKey is a provider chosen by --provider alone: its own variable
// when set, else the keys it has.
func (s *setupRun) defaultKey(b config.Backend) (*providerAnswer, error) {
	for _, name := range keyEnvNames(b) {
		if strings.TrimSpace(s.host.getenv(name)) != "" {
			return s.fromEnv(b, name)
		}
	}
	if s.cfg.KeyCount(b.Name) > 0 {
		return s.keep(b)
	}
	return nil, &usageError{fmt.Sprintf("no key for %s: pass --key-env VAR or --key-file PATH, or export %s", b.Name, strings.Join(keyEnvNames(b), " or "))}
}

// keep keeps the keys the configuration has, checking them.
func (s *setupRun) keep(b config.Backend) (*providerAnswer, error) {
	s.secrets.add(s.cfg.Secrets()...)
	ok, err := s.accept(b, "the keys it has", "")
	if err != nil || !ok {
		if err == nil && !s.interactive() {
			err = fmt.Errorf("%s: its keys were not kept", b.Name)
		}
		return nil, err
	}
	return &providerAnswer{backend: b, store: storeKeep}, nil
}

// instanceURL settles SearXNG's instance URL.
func (s *setupRun) instanceURL(b config.Backend) (*providerAnswer, error) {
	raw := s.opts.searxngURL
	for {
		if raw == "" {
			if !s.interactive() {
				return nil, &usageError{"--provider searxng needs --searxng-url URL"}
			}
			line, err := s.ask(fmt.Sprintf("\n%s takes no key. Its instance's URL (JSON output must be on; Enter skips it): ", b.Title))
			if err != nil {
				return nil, err
			}
			if line == "" {
				fmt.Fprintf(s.out, "%s skipped.\n", b.Title)
				return nil, nil
			}
			raw = line
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			if !s.interactive() {
				return nil, &usageError{"--searxng-url needs an http or https URL"}
			}
			fmt.Fprintln(s.out, "That is not an http or https URL.")
			raw = ""
			continue
		}
		ok, err := s.accept(b, "the instance", raw)
		if err != nil {
			return nil, err
		}
		if ok {
			return &providerAnswer{backend: b, store: storeURL, value: raw}, nil
		}
		if !s.interactive() {
			return nil, fmt.Errorf("%s: the instance was not kept", b.Name)
		}
		raw = ""
	}
}

// verdict is the outcome of a key check.
type verdict int

const (
	verdictOK verdict = iota
	verdictRefused
	verdictQuota
	verdictUnchecked
)

// accept checks what (a key, a key file's path, an instance URL, or ""
// for what the configuration has) with one search at the provider and
// says whether to keep it.
func (s *setupRun) accept(b config.Backend, what, value string) (bool, error) {
	if s.opts.noValidate {
		fmt.Fprintf(s.out, "%s: %s kept without a check (--no-validate).\n", b.Title, what)
		return true, nil
	}
	fmt.Fprintf(s.out, "Checking %s with one small search at %s… ", what, b.Title)
	v, detail := s.check(b, value)
	if err := s.ctx.Err(); err != nil {
		return false, err
	}
	switch v {
	case verdictOK:
		fmt.Fprintln(s.out, "it works.")
		return true, nil
	case verdictRefused:
		fmt.Fprintf(s.out, "the key was refused%s.\n", detail)
		if s.interactive() {
			fmt.Fprintln(s.out, "Check that it is whole and belongs to "+b.Title+", then try again.")
		}
		return false, nil
	case verdictQuota:
		fmt.Fprintf(s.out, "valid but out of credits%s: webgate skips %s until the plan renews or is topped up.\n", detail, b.Title)
		if !s.interactive() {
			return true, nil
		}
		return s.yesNo("Keep it? [Y/n] ", true)
	}
	fmt.Fprintf(s.out, "could not check: %s.\n", detail)
	if !s.interactive() {
		fmt.Fprintln(s.out, "Run it again when the provider can be reached, or pass --no-validate to keep the key unchecked.")
		return false, nil
	}
	return s.yesNo("Keep it anyway? [y/N] ", false)
}

// checkTimeout bounds a key check.
const checkTimeout = 20 * time.Second

// check runs one search at the provider with value in place of its keys
// (or its instance URL), through the provider's own client as webgate
// builds it, without retries. The detail never holds a key.
func (s *setupRun) check(b config.Backend, value string) (verdict, string) {
	var extra []string
	set := func(key, val string) {
		if st, ok := config.SettingByKey(key); ok && st.Env != "" {
			extra = append(extra, st.Env+"="+val)
		}
	}
	switch {
	case b.NoKey:
		set("providers."+b.Name+".base_url", value)
	case value != "":
		set("providers."+b.Name+".keys", value)
	}
	set("providers."+b.Name+".http.max_attempts", "1")
	cfg, _ := s.loadConfig(extra)
	st, err := assemble.Build(cfg, &assemble.Options{SearchProviders: []string{b.Name}, ExtractProviders: []string{}, NoReader: true})
	if st == nil || st.Searcher == nil {
		msg := "webgate could not build " + b.Title
		if err != nil {
			msg += ": " + err.Error()
		}
		return verdictUnchecked, s.clean(msg)
	}
	ctx, cancel := context.WithTimeout(s.ctx, checkTimeout)
	defer cancel()
	_, err = st.Searcher.Search(ctx, provider.Query{Text: "webgate", MaxResults: 1})
	if err == nil {
		return verdictOK, ""
	}
	var pe *provider.Error
	status := ""
	if errors.As(err, &pe) {
		if pe.Status != 0 {
			status = fmt.Sprintf(" (HTTP %d)", pe.Status)
		}
		err = pe
	}
	switch provider.KindOf(err) {
	case provider.KindAuth:
		return verdictRefused, status
	case provider.KindQuota:
		return verdictQuota, status
	case provider.KindCanceled:
		if s.ctx.Err() == nil {
			return verdictUnchecked, "no answer within " + checkTimeout.String()
		}
	}
	return verdictUnchecked, s.clean(err.Error())
}

// clean makes a message safe to show: one line of text, without a key.
func (s *setupRun) clean(msg string) string {
	return s.secrets.scrub(oneLineText(sanitize.Line(msg)))
}

// targetFlags returns the agents the --target flags name.
func (s *setupRun) targetFlags() ([]setup.Target, error) {
	var out []setup.Target
	for _, t := range s.opts.targets {
		if t == "all" {
			base, _ := (&setupFlags{scope: "user"}).options(s.host)
			for _, a := range setupTargets {
				o := base
				o.Target = a
				path, _ := setup.SettingsPath(o)
				if a == setup.ClaudeCode || a == setup.CopilotCLI || agentPresent(a, path) {
					out = appendNew(out, a)
				}
			}
			continue
		}
		i := slices.IndexFunc(setup.Targets, func(x setup.Target) bool { return string(x) == t })
		if i < 0 {
			return nil, &usageError{fmt.Sprintf("unknown --target %q (want %s or all)", t, targetNames())}
		}
		out = appendNew(out, setup.Targets[i])
	}
	return out, nil
}

// askTargets lists the agents and asks which to register with.
func (s *setupRun) askTargets() ([]setup.Target, error) {
	var out []setup.Target
	base, _ := (&setupFlags{scope: "user"}).options(s.host)
	fmt.Fprintln(s.out, "\nAgents to register webgate with:")
	var detected []string
	for i, t := range setupTargets {
		o := base
		o.Target = t
		path, _ := setup.SettingsPath(o)
		what := "hooks in"
		if t == setup.Codex {
			what = "MCP server in"
		}
		mark := ""
		if agentPresent(t, path) {
			mark = "  [found on this machine]"
			detected = append(detected, string(t))
		}
		fmt.Fprintf(s.out, "  %d. %-12s %s %s%s\n", i+1, t, what, path, mark)
	}
	def := strings.Join(detected, " ")
	if def == "" {
		def = string(setup.ClaudeCode)
	}
	for {
		line, err := s.ask(fmt.Sprintf("Choose by number or name, separated by spaces or commas ('none' for none) [%s]: ", def))
		if err != nil {
			return nil, err
		}
		if line == "" {
			line = def
		}
		if strings.EqualFold(line, "none") {
			return nil, nil
		}
		out = nil
		bad := ""
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			if i, err := strconv.Atoi(f); err == nil && i >= 1 && i <= len(setupTargets) {
				out = appendNew(out, setupTargets[i-1])
				continue
			}
			i := slices.IndexFunc(setup.Targets, func(x setup.Target) bool { return strings.EqualFold(string(x), f) })
			if i < 0 {
				bad = f
				break
			}
			out = appendNew(out, setup.Targets[i])
		}
		if bad == "" {
			return out, nil
		}
		fmt.Fprintf(s.out, "%q is not an agent: give numbers from 1 to %d, or names such as claude-code.\n", sanitize.Line(bad), len(setupTargets))
	}
}

// agentPresent reports whether an agent looks installed: its settings
// directory exists or its command is on PATH.
func agentPresent(t setup.Target, settings string) bool {
	if settingsDirExists(t, settings) {
		return true
	}
	cmd := map[setup.Target]string{setup.ClaudeCode: "claude", setup.CopilotCLI: "copilot", setup.GeminiCLI: "gemini", setup.Codex: "codex"}[t]
	_, err := exec.LookPath(cmd)
	return err == nil
}

// settingsDirExists reports whether the agent's own directory holding the
// settings file exists (~/.copilot for Copilot CLI's hooks/webgate.json).
func settingsDirExists(t setup.Target, settings string) bool {
	if settings == "" {
		return false
	}
	dir := filepath.Dir(settings)
	if t == setup.CopilotCLI {
		dir = filepath.Dir(dir)
	}
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// targetNames lists every target setup accepts, as its --target help
// and its error for an unknown one say them.
func targetNames() string {
	names := make([]string, len(setup.Targets))
	for i, t := range setup.Targets {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// summary says what setup is about to write.
func (s *setupRun) summary(answers []providerAnswer, edit *setup.ConfigEdit, targets []setup.Target) {
	fmt.Fprintln(s.out, "\nReady to:")
	n := 0
	if edit != nil && edit.Changed() {
		var keys []string
		for _, a := range answers {
			for _, st := range a.settings() {
				keys = append(keys, st.Key)
			}
		}
		fmt.Fprintf(s.out, "  - write %s (mode 0600): %s\n", s.cfgPath, strings.Join(keys, ", "))
		n++
	}
	for _, t := range targets {
		fmt.Fprintf(s.out, "  - register webgate with %s\n", t)
		n++
	}
	fmt.Fprintln(s.out, "  - run 'webgate doctor'")
	if n == 0 {
		fmt.Fprintln(s.out, "  (no file to write)")
	}
}

// notes says what the user must still know about the keys as stored.
func (s *setupRun) notes(answers []providerAnswer) {
	for _, a := range answers {
		switch a.store {
		case storeEnv:
			fmt.Fprintf(s.out, "%s: webgate reads the key from %s; keep it exported where your agents run (Codex and Gemini CLI may not pass it on: keep the key in the configuration file for them).\n", a.backend.Title, a.envVar)
		case storeFile, storeKeyFile:
			if a.envVar != "" && a.store == storeFile {
				fmt.Fprintf(s.out, "%s: webgate does not read %s, so its value was copied into %s.\n", a.backend.Title, a.envVar, s.cfgPath)
			}
			for _, name := range keyEnvNames(a.backend) {
				if strings.TrimSpace(s.host.getenv(name)) != "" {
					fmt.Fprintf(s.out, "%s: %s is set in this environment and takes precedence over the configuration file: unset it, or keep it the same.\n", a.backend.Title, name)
					break
				}
			}
		}
		in := slices.Contains(s.cfg.Search.Order(), a.backend.Name) || slices.Contains(s.cfg.Extract.Order(), a.backend.Name)
		if !in {
			fmt.Fprintf(s.out, "%s is in neither search.providers nor extract.providers of your configuration: add it there, or it is not used.\n", a.backend.Title)
		}
	}
}

// install registers webgate with each target, as 'webgate install' does,
// keeping what an earlier install registered. It reports whether every
// target succeeded.
func (s *setupRun) install(targets []setup.Target) bool {
	o, err := (&setupFlags{scope: "user"}).options(s.host)
	if err != nil {
		fmt.Fprintf(s.errOut, "webgate setup: %v\n", err)
		return false
	}
	if slices.ContainsFunc(targets, func(t setup.Target) bool { return t != setup.Codex }) {
		if o.WebSearchBin, o.WebFetchBin, err = findHookBinaries("", s.host.ExeDir); err != nil {
			fmt.Fprintf(s.errOut, "webgate setup: %v\n", err)
			return false
		}
	}
	if slices.Contains(targets, setup.Codex) {
		if o.WebgateBin, err = findWebgateBinary(""); err != nil {
			fmt.Fprintf(s.errOut, "webgate setup: %v\n", err)
			return false
		}
	}
	return applyTargets("setup", o, targets, true, false, s.out, s.errOut)
}

// ask prints prompt and reads a line, trimmed.
func (s *setupRun) ask(prompt string) (string, error) {
	fmt.Fprint(s.out, prompt)
	line, err := s.read(s.in.line)
	return strings.TrimSpace(line), err
}

// secret prints prompt and reads a line without echo, trimmed of spaces
// and of the markers of a bracketed paste.
func (s *setupRun) secret(prompt string) (string, error) {
	fmt.Fprint(s.out, prompt)
	line, err := s.read(s.in.secret)
	fmt.Fprintln(s.out)
	line = strings.NewReplacer("\x1b[200~", "", "\x1b[201~", "").Replace(line)
	return strings.TrimSpace(line), err
}

// choose asks for a number from 1 to n; Enter is def.
func (s *setupRun) choose(prompt string, n, def int) (int, error) {
	for {
		line, err := s.ask(prompt)
		if err != nil {
			return 0, err
		}
		if line == "" {
			return def, nil
		}
		if i, err := strconv.Atoi(line); err == nil && i >= 1 && i <= n {
			return i, nil
		}
		fmt.Fprintf(s.out, "Give a number from 1 to %d.\n", n)
	}
}

// yesNo asks a yes/no question; Enter is def.
func (s *setupRun) yesNo(prompt string, def bool) (bool, error) {
	for {
		line, err := s.ask(prompt)
		if err != nil {
			return false, err
		}
		switch strings.ToLower(line) {
		case "":
			return def, nil
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
		fmt.Fprintln(s.out, "Answer y or n.")
	}
}

// read runs a blocking read, giving up when setup is interrupted.
func (s *setupRun) read(f func() (string, error)) (string, error) {
	type result struct {
		s   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := f()
		ch <- result{line, err}
	}()
	select {
	case r := <-ch:
		if errors.Is(r.err, io.EOF) {
			r.err = errSetupInput
		}
		return r.s, r.err
	case <-s.ctx.Done():
		return "", s.ctx.Err()
	}
}

// terminalInput reads answers from the terminal on standard input.
type terminalInput struct {
	f  *os.File
	fd int
}

// line reads one line, a byte at a time so that nothing after it is
// taken from the terminal.
func (t *terminalInput) line() (string, error) {
	var b []byte
	buf := make([]byte, 1)
	for {
		n, err := t.f.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return string(b), nil
			}
			b = append(b, buf[0])
		}
		if err != nil {
			if len(b) > 0 && errors.Is(err, io.EOF) {
				return string(b), nil
			}
			return "", err
		}
	}
}

// secret reads one line with echo off.
func (t *terminalInput) secret() (string, error) {
	b, err := term.ReadPassword(t.fd)
	return string(b), err
}

// secretSet holds the keys setup has seen, to keep them out of its
// output.
type secretSet struct {
	mu   sync.Mutex
	list []string
}

func (s *secretSet) add(keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		if k = strings.TrimSpace(k); textfmt.IsSecret(k) && !slices.Contains(s.list, k) {
			s.list = append(s.list, k)
		}
	}
}

func (s *secretSet) scrub(text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return textfmt.Scrub(text, s.list...)
}

// secretWriter writes through w with every key of secrets replaced. Each
// write is scrubbed alone: setup writes whole messages.
type secretWriter struct {
	w       io.Writer
	secrets *secretSet
}

func (s *secretWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, s.secrets.scrub(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// expandUserPath expands a leading "~/" with the home directory.
func expandUserPath(p string, h hostEnv) string {
	if h.Home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		return filepath.Join(h.Home, strings.TrimPrefix(p, "~"))
	}
	return p
}

// appendNew appends v to list unless it is there already.
func appendNew[T comparable](list []T, v T) []T {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}
