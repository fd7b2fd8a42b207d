package config

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/knadh/koanf/parsers/json"
	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"

	"github.com/webgate-dev/webgate/internal/safefile"
)

// ConfigFileEnv names the environment variable that points at the
// configuration file.
const ConfigFileEnv = "WEBGATE_CONFIG"

// LoadOptions are the inputs of [Load]. Nothing else is read: not the
// process environment, not the real home directory.
type LoadOptions struct {
	// Env is the environment, as "NAME=value" strings (os.Environ's form).
	// Empty values count as unset.
	Env []string
	// HomeDir is the user's home directory, used to expand a leading "~/"
	// in paths and to find the default file and state locations. Empty
	// means those defaults are skipped and "~/" is left alone.
	HomeDir string
	// ConfigFile, when set, is the configuration file to read, taking
	// precedence over WEBGATE_CONFIG and the default locations.
	ConfigFile string
}

// LoadFromOS loads the configuration from the process environment and the
// user's home directory. It is for mains; everything else takes a Config.
func LoadFromOS() (*Config, error) {
	home, _ := os.UserHomeDir()
	return Load(LoadOptions{Env: os.Environ(), HomeDir: home})
}

// Load reads the configuration: defaults, then the configuration file, then
// environment variables, each overriding the one before.
//
// The file is opts.ConfigFile, else the one WEBGATE_CONFIG names, else the
// first that exists of config.toml, config.yaml, config.yml and config.json
// in $XDG_CONFIG_HOME/webgate (default ~/.config/webgate). Its format
// follows its extension.
//
// Load always returns a usable Config. Each invalid setting keeps its
// default (or its file value, when only the environment's is invalid) and
// is reported in the returned error, an *[Error] listing every problem, so
// that a caller can carry on with what is valid (hooks fail open) or stop
// (the CLI's doctor).
func Load(opts LoadOptions) (*Config, error) {
	l := &loader{
		cfg:     Default(),
		env:     envMap(opts.Env),
		home:    opts.HomeDir,
		origins: map[string]string{},
	}
	l.cfg.Sources = []string{"defaults"}
	l.loadFile(opts.ConfigFile)
	l.loadEnv()
	l.finish()
	l.cfg.origins = l.origins
	if err := l.cfg.ResolveKeys(l.home); err != nil {
		l.problems = append(l.problems, err)
	}
	return l.cfg, joinProblems(l.problems)
}

type loader struct {
	cfg      *Config
	env      map[string]string
	home     string
	origins  map[string]string
	problems []error
}

func (l *loader) problem(key, source, msg string, err error) {
	l.problems = append(l.problems, &Problem{Key: key, Source: source, Message: msg, Err: err})
}

func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if name, val, ok := strings.Cut(kv, "="); ok && name != "" {
			m[name] = val
		}
	}
	return m
}

// lookup returns a variable's value when it is set and not blank.
func (l *loader) lookup(name string) (string, bool) {
	v, ok := l.env[name]
	if !ok || strings.TrimSpace(v) == "" {
		return "", false
	}
	return v, true
}

// configDir returns $XDG_CONFIG_HOME/webgate or ~/.config/webgate, or "".
func (l *loader) configDir() string {
	if x, ok := l.lookup("XDG_CONFIG_HOME"); ok && filepath.IsAbs(x) {
		return filepath.Join(x, "webgate")
	}
	if l.home == "" {
		return ""
	}
	return filepath.Join(l.home, ".config", "webgate")
}

// stateDir returns $XDG_STATE_HOME/webgate or ~/.local/state/webgate, or "".
func (l *loader) stateDir() string {
	if x, ok := l.lookup("XDG_STATE_HOME"); ok && filepath.IsAbs(x) {
		return filepath.Join(x, "webgate")
	}
	if l.home == "" {
		return ""
	}
	return filepath.Join(l.home, ".local", "state", "webgate")
}

// DefaultFileNames are the file names looked for, in order, in the
// configuration directory.
var DefaultFileNames = []string{"config.toml", "config.yaml", "config.yml", "config.json"}

func (l *loader) loadFile(explicit string) {
	path, source := explicit, "option ConfigFile"
	if path == "" {
		if v, ok := l.lookup(ConfigFileEnv); ok {
			path, source = strings.TrimSpace(v), "env "+ConfigFileEnv
			l.cfg.Sources = append(l.cfg.Sources, source)
		}
	}
	if path == "" {
		dir := l.configDir()
		if dir == "" {
			return
		}
		for _, name := range DefaultFileNames {
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				path, source = p, "default location"
				break
			}
		}
		if path == "" {
			return
		}
	}
	path = expandHome(path, l.home)

	var parser koanf.Parser
	switch strings.ToLower(filepath.Ext(path)) {
	case ".toml":
		parser = toml.Parser()
	case ".yaml", ".yml":
		parser = yaml.Parser()
	case ".json":
		parser = json.Parser()
	default:
		l.problem("config file", source, "cannot tell the format of "+path+"; name it .toml, .yaml, .yml or .json", nil)
		return
	}
	data, err := safefile.ReadFile(path, 0)
	if err != nil {
		reason := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			reason = pe.Err
		}
		l.problem("config file", source, fmt.Sprintf("cannot read %s: %v", path, reason), err)
		return
	}
	m, err := parser.Unmarshal(data)
	if err != nil {
		l.problem("config file", source, fmt.Sprintf("cannot parse %s: %s", path, parseErrorText(err)), err)
		return
	}
	fk := koanf.New(".")
	if err := fk.Load(confmap.Provider(m, ""), nil); err != nil {
		l.problem("config file", source, fmt.Sprintf("cannot load %s: %v", path, err), err)
		return
	}
	l.cfg.Sources = append(l.cfg.Sources, "file "+path)
	known := map[string]bool{}
	for _, s := range settingsList {
		known[s.Key] = true
	}
	for _, key := range fk.Keys() {
		if !known[key] {
			l.problem(key, "file "+path, "unknown setting", nil)
		}
	}
	l.apply(fk, func(key string) string { return "file " + path + " key " + key })
}

// parseErrorText keeps a parser's message to its first line: parsers
// describe the position and the expected token there, and the lines after
// it may quote the file, which may hold keys. JSON syntax errors quote the
// offending character, so they are reduced to the offset.
func parseErrorText(err error) string {
	var se *stdjson.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	}
	var te *stdjson.UnmarshalTypeError
	if errors.As(err, &te) {
		return "want a JSON object at the top level"
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// loadEnv merges the environment variables of every setting over the
// file: the WEBGATE_ name first, then the legacy names in order.
func (l *loader) loadEnv() {
	m := map[string]any{}
	used := map[string]string{}
	for _, s := range settingsList {
		names := s.Legacy
		if s.Env != "" {
			names = append([]string{s.Env}, s.Legacy...)
		}
		for _, name := range names {
			if v, ok := l.lookup(name); ok {
				m[s.Key] = v
				used[s.Key] = "env " + name
				l.cfg.Sources = append(l.cfg.Sources, "env "+name)
				break
			}
		}
	}
	if len(m) == 0 {
		return
	}
	ek := koanf.New(".")
	// Load cannot fail for a confmap provider without a parser.
	_ = ek.Load(confmap.Provider(m, "."), nil)
	l.apply(ek, func(key string) string { return used[key] })
}

// apply converts every value of one layer into its field. An invalid value
// is reported and the field keeps the value of the layer before.
func (l *loader) apply(k *koanf.Koanf, origin func(key string) string) {
	for _, s := range settingsList {
		if !k.Exists(s.Key) {
			continue
		}
		src := origin(s.Key)
		if s.Kind == KindTable {
			if l.applyTable(k, s, src) {
				l.origins[s.Key] = src
			}
			continue
		}
		v, msg := s.parse(k.Get(s.Key))
		if msg != "" {
			l.problem(s.Key, src, msg, nil)
			continue
		}
		s.field(l.cfg).Set(s.wrap(v))
		l.origins[s.Key] = src
	}
}

// applyTable decodes a list of tables, checking field names first so that
// a misspelt field is reported rather than silently ignored.
func (l *loader) applyTable(k *koanf.Koanf, s Setting, src string) bool {
	items, ok := k.Get(s.Key).([]any)
	if !ok {
		l.problem(s.Key, src, "want a list of tables", nil)
		return false
	}
	f := s.field(l.cfg)
	allowed := koanfFields(f.Type().Elem())
	for i, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			l.problem(s.Key, src, fmt.Sprintf("item %d is not a table", i+1), nil)
			return false
		}
		for name := range m {
			if !slices.Contains(allowed, name) {
				l.problem(s.Key, src, fmt.Sprintf("item %d has an unknown field %s; want %s", i+1, name, strings.Join(allowed, ", ")), nil)
				return false
			}
		}
	}
	out := reflect.New(f.Type())
	if err := k.UnmarshalWithConf(s.Key, out.Interface(), koanf.UnmarshalConf{Tag: "koanf"}); err != nil {
		// The decoder's message may quote values; keep it out of the text.
		l.problem(s.Key, src, "want a list of tables with the fields "+strings.Join(allowed, ", ")+" and values of the right types", nil)
		return false
	}
	f.Set(out.Elem())
	return true
}

func koanfFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("koanf"); tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}

// finish fills the defaults that depend on the environment and expands
// "~/" in paths.
func (l *loader) finish() {
	c := l.cfg
	if c.StateDir == "" {
		c.StateDir = l.stateDir()
	}
	c.StateDir = expandHome(c.StateDir, l.home)
	c.Docs.Config = expandHome(c.Docs.Config, l.home)
	c.Routes.Config = expandHome(c.Routes.Config, l.home)
}
