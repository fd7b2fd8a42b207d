package config

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
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

	"github.com/webgate-dev/webgate/hooks/worker"
	"github.com/webgate-dev/webgate/internal/safefile"
)

// ConfigFileEnv names the environment variable that points at the
// configuration file.
const ConfigFileEnv = "WEBGATE_CONFIG"

// LoadOptions are the inputs of [Load]. Nothing else is read: not the
// process environment, not the real home directory (only the cache files
// of [LoadOptions.Cache], when it is set).
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
	// SkipTables lists keys of list-of-tables settings ("docs.databases",
	// "routes.tool_routes") the caller does not need: they keep their
	// defaults (empty), are not decoded, and their problems are not
	// reported. Decoding a thousand tables costs milliseconds, which a hook
	// that never uses them need not pay.
	SkipTables []string
	// Cache keeps what the configuration file sets, once parsed and
	// checked, in a cache file, so that a later Load of the same version
	// of the file (same path, device, inode, size, modification and change
	// times) by the same program (executable path, size, modification time
	// and inode) reads that instead of parsing the file again, without
	// even reading the file: for a file of a thousand routes, milliseconds
	// saved at every start of a hook. The environment is still applied over
	// it at every Load, and key files are still read. A file changed less
	// than two seconds before the Load is not cached, so that two changes
	// within one tick of the file system's clock cannot go unnoticed.
	// Cache files live in config-cache/ under the state directory the
	// environment gives (WEBGATE_STATE_DIR, else $XDG_STATE_HOME/webgate,
	// else ~/.local/state/webgate), mode 0600 in a directory of mode 0700;
	// one that is not the user's own private regular file, is damaged or
	// is older than a day is ignored and rewritten. A cache file never
	// holds a key: a configuration file that sets a key inline (rather
	// than the path of a key file) is not cached. The cache is for Linux,
	// macOS and the BSDs; failing to read or write it is never an error.
	Cache bool
}

// LoadFromOS loads the configuration from the process environment and the
// user's home directory. It is for mains; everything else takes a Config.
func LoadFromOS() (*Config, error) {
	return LoadFromOSWith(nil)
}

// LoadFromOSWith is [LoadFromOS] with options: opts.Env and opts.HomeDir,
// when empty, are the process environment and the user's home directory.
// A nil opts means defaults, as for [LoadFromOS].
func LoadFromOSWith(opts *LoadOptions) (*Config, error) {
	var o LoadOptions
	if opts != nil {
		o = *opts
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if o.HomeDir == "" {
		o.HomeDir, _ = os.UserHomeDir()
	}
	return Load(&o)
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
//
// A nil opts means defaults: the zero LoadOptions (no environment, no
// home directory, no cache).
func Load(opts *LoadOptions) (*Config, error) {
	if opts == nil {
		opts = &LoadOptions{}
	}
	l := &loader{
		cfg:     Default(),
		env:     envMap(opts.Env),
		home:    opts.HomeDir,
		origins: map[string]string{},
		cache:   opts.Cache,
	}
	for _, k := range opts.SkipTables {
		if l.skip == nil {
			l.skip = map[string]bool{}
		}
		l.skip[k] = true
	}
	l.cfg.Sources = []string{"defaults"}
	l.loadFile(opts.ConfigFile)
	l.loadEnv()
	l.finish()
	l.cfg.origins = l.origins
	l.cfg.customEndpoint = customEndpoint(l.env)
	l.cfg.claudeConfigDir = l.absDir("CLAUDE_CONFIG_DIR")
	l.cfg.claudeProjectDir = l.absDir("CLAUDE_PROJECT_DIR")
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
	// skip holds the list-of-tables settings not to decode.
	skip map[string]bool
	// cache is set when the file's settings may be cached.
	cache bool
}

func (l *loader) problem(key, source, msg string, err error) {
	l.problems = append(l.problems, &Problem{Key: key, Source: source, Message: msg, Err: err})
}

// absDir returns the directory the variable name holds, with a leading
// "~/" expanded, when it is an absolute path; "" otherwise.
func (l *loader) absDir(name string) string {
	v, ok := l.lookup(name)
	if !ok {
		return ""
	}
	v = expandHome(strings.TrimSpace(v), l.home)
	if !filepath.IsAbs(v) {
		return ""
	}
	return filepath.Clean(v)
}

// customEndpoint reports whether env says Claude Code talks to another
// endpoint than Anthropic's API.
func customEndpoint(env map[string]string) bool {
	for _, v := range []string{"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"} {
		if b := strings.TrimSpace(env[v]); b != "" && b != "0" && !strings.EqualFold(b, "false") {
			return true
		}
	}
	raw := strings.TrimSpace(env["ANTHROPIC_BASE_URL"])
	if raw == "" {
		return false
	}
	u, err := url.Parse(raw)
	return err != nil || !strings.EqualFold(u.Hostname(), "api.anthropic.com")
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
	x, _ := l.lookup("XDG_STATE_HOME")
	return worker.DefaultStateDir(x, l.home)
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
			l.cfg.lookedAt = append(l.cfg.lookedAt, p)
			if path != "" {
				continue
			}
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				path, source = p, "default location"
			}
		}
		if path == "" {
			return
		}
	}
	path = expandHome(path, l.home)
	l.cfg.lookedAt = append(l.cfg.lookedAt, path)

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
	cannotRead := func(err error) {
		reason := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			reason = pe.Err
		}
		l.problem("config file", source, fmt.Sprintf("cannot read %s: %v", path, reason), err)
	}
	f, err := safefile.Open(path)
	if err != nil {
		cannotRead(err)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		cannotRead(err)
		return
	}
	var cached *fileCache
	var fl *layer
	if l.cache {
		if cached = l.openCache(path, fi); cached != nil {
			fl = cached.load(l.skip)
		}
	}
	if fl == nil {
		data, err := safefile.ReadOpened(f, path, fi.Size(), safefile.MaxBytes)
		if err != nil {
			cannotRead(err)
			return
		}
		m, err := parser.Unmarshal(data)
		if err != nil {
			l.problem("config file", source, fmt.Sprintf("cannot parse %s: %s", path, parseErrorText(err)), err)
			return
		}
		// A layer that is cached holds every table; otherwise the tables
		// not needed are left out.
		skip := l.skip
		if cached != nil {
			skip = nil
		}
		if fl, err = fileLayer(m, path, skip); err != nil {
			l.problem("config file", source, fmt.Sprintf("cannot load %s: %v", path, err), err)
			return
		}
		if cached != nil {
			cached.store(fl)
		}
	}
	l.cfg.Sources = append(l.cfg.Sources, "file "+path)
	l.applyLayer(fl)
}

// fileLayer collects what the parsed file m sets. The list-of-tables
// settings in skip are left out unread.
func fileLayer(m map[string]any, path string, skip map[string]bool) (*layer, error) {
	tables := takeTables(m, skip)
	fk := koanf.New(".")
	if err := fk.Load(confmap.Provider(m, ""), nil); err != nil {
		return nil, err
	}
	fl := &layer{}
	for _, key := range fk.Keys() {
		if _, known := settingByKey(key); !known {
			fl.problem(key, "file "+path, "unknown setting", nil)
		}
	}
	fl.collect(fk, tables, func(key string) string { return "file " + path + " key " + key })
	return fl, nil
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

// layer is what one source, the file or the environment, sets: the
// converted values, in the order of the settings, and the problems found,
// in the order found.
type layer struct {
	values   []layerValue
	problems []*Problem
}

// layerValue is one setting's value from a layer.
type layerValue struct {
	key    string
	value  reflect.Value // of the field's type
	origin string
}

func (ly *layer) problem(key, source, msg string, err error) {
	ly.problems = append(ly.problems, &Problem{Key: key, Source: source, Message: msg, Err: err})
}

func (ly *layer) set(key string, v reflect.Value, origin string) {
	ly.values = append(ly.values, layerValue{key: key, value: v, origin: origin})
}

// applyLayer sets the fields of ly's values and records its problems,
// leaving out the tables l skips.
func (l *loader) applyLayer(ly *layer) {
	for _, p := range ly.problems {
		if !l.skip[p.Key] {
			l.problems = append(l.problems, p)
		}
	}
	for _, v := range ly.values {
		if l.skip[v.key] {
			continue
		}
		s, _ := settingByKey(v.key)
		s.field(l.cfg).Set(v.value)
		l.origins[v.key] = v.origin
	}
}

// settingKey indexes settingsList by key.
var settingKey = func() map[string]int {
	m := make(map[string]int, len(settingsList))
	for i, s := range settingsList {
		m[s.Key] = i
	}
	return m
}()

// settingByKey returns the setting with key, and whether there is one.
func settingByKey(key string) (*Setting, bool) {
	i, ok := settingKey[key]
	if !ok {
		return nil, false
	}
	return &settingsList[i], true
}

// apply converts every value of one layer into its field. An invalid value
// is reported and the field keeps the value of the layer before.
func (l *loader) apply(k *koanf.Koanf, origin func(key string) string) {
	var ly layer
	ly.collect(k, nil, origin)
	l.applyLayer(&ly)
}

// collect converts every value k holds, and the tables taken out of the
// file before k was loaded ([takeTables]), into values of their fields. An
// invalid value is reported and left out.
func (ly *layer) collect(k *koanf.Koanf, tables map[string]takenTable, origin func(key string) string) {
	for _, s := range settingsList {
		if s.Kind == KindTable {
			if t, ok := tables[s.Key]; ok {
				if t.skipped {
					continue
				}
				src := origin(s.Key)
				if ly.checkTable(s, t.items, src) {
					ly.set(s.Key, t.value, src)
				}
				continue
			}
		}
		if !k.Exists(s.Key) {
			continue
		}
		src := origin(s.Key)
		if s.Kind == KindTable {
			if v, ok := ly.decodeTable(k, s, src); ok {
				ly.set(s.Key, v, src)
			}
			continue
		}
		v, msg := s.parse(k.Get(s.Key))
		if msg != "" {
			ly.problem(s.Key, src, msg, nil)
			continue
		}
		ly.set(s.Key, s.wrap(v), src)
	}
}

// checkTable checks the field names of a list of tables, so that a
// misspelt field is reported rather than silently ignored.
func (ly *layer) checkTable(s Setting, raw any, src string) bool {
	items, ok := raw.([]any)
	if !ok {
		ly.problem(s.Key, src, "want a list of tables", nil)
		return false
	}
	allowed := koanfFields(s.typ.Elem())
	for i, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			ly.problem(s.Key, src, fmt.Sprintf("item %d is not a table", i+1), nil)
			return false
		}
		for name := range m {
			if !slices.Contains(allowed, name) {
				ly.problem(s.Key, src, fmt.Sprintf("item %d has an unknown field %s; want %s", i+1, name, strings.Join(allowed, ", ")), nil)
				return false
			}
		}
	}
	return true
}

// decodeTable decodes a list of tables k holds, checking field names
// first.
func (ly *layer) decodeTable(k *koanf.Koanf, s Setting, src string) (reflect.Value, bool) {
	if !ly.checkTable(s, k.Get(s.Key), src) {
		return reflect.Value{}, false
	}
	out := reflect.New(s.typ)
	if err := k.UnmarshalWithConf(s.Key, out.Interface(), koanf.UnmarshalConf{Tag: "koanf"}); err != nil {
		// The decoder's message may quote values; keep it out of the text.
		ly.problem(s.Key, src, "want a list of tables with the fields "+strings.Join(koanfFields(s.typ.Elem()), ", ")+" and values of the right types", nil)
		return reflect.Value{}, false
	}
	return out.Elem(), true
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
	c.StateDir = l.absPath("state_dir", c.StateDir, l.stateDir)
	c.Store.SaltFile = l.absPath("store.salt_file", c.Store.SaltFile, nil)
	c.Docs.Config = l.absPath("docs.config", c.Docs.Config, nil)
	c.Routes.Config = l.absPath("routes.config", c.Routes.Config, nil)
}

// absPath returns the path setting key holds, p, with a leading "~/"
// expanded. A path that is still not absolute (a relative one, or a "~/"
// with no home directory known) is ignored, as the XDG Base Directory
// rule ignores a relative $XDG_CONFIG_HOME: it would name a place in the
// working directory of whatever runs webgate (an agent's project). It is
// replaced by fallback's path, or "" (none), and noted ([Config.Ignored]).
func (l *loader) absPath(key, p string, fallback func() string) string {
	if p == "" {
		return ""
	}
	p = expandHome(p, l.home)
	if filepath.IsAbs(p) {
		return p
	}
	why := "a relative path"
	if p == "~" || strings.HasPrefix(p, "~/") {
		why = "no home directory is known to expand ~/ in"
	}
	src := l.origins[key]
	if src == "" {
		src = "setting"
	}
	if fallback == nil {
		l.cfg.ignored = append(l.cfg.ignored, fmt.Sprintf("%s (%s): ignored, not an absolute path (%s); none is used", key, src, why))
		return ""
	}
	d := fallback()
	l.cfg.ignored = append(l.cfg.ignored, fmt.Sprintf("%s (%s): ignored, not an absolute path (%s); the default %s is used", key, src, why, d))
	return d
}
