//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package config

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// cacheSetup returns a configuration file path with content, the state
// directory the cache goes in, and an environment naming both.
func cacheSetup(t *testing.T, name, content string) (file, state string, env []string) {
	t.Helper()
	saved := cacheRacyWindow
	cacheRacyWindow = 0
	t.Cleanup(func() { cacheRacyWindow = saved })
	dir := t.TempDir()
	file = writeFile(t, filepath.Join(dir, name), content)
	state = filepath.Join(dir, "state")
	return file, state, []string{"WEBGATE_CONFIG=" + file, "WEBGATE_STATE_DIR=" + state}
}

// cacheFiles lists the cache files in state.
func cacheFiles(t *testing.T, state string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(state, cacheDirName, "*.cache"))
	return m
}

// loadBoth loads with and without the cache and fails unless the results
// are the same.
func loadBoth(t *testing.T, env []string, extra ...string) (*Config, error) {
	t.Helper()
	env = append(append([]string(nil), env...), extra...)
	want, wantErr := Load(&LoadOptions{Env: env})
	got, gotErr := Load(&LoadOptions{Env: env, Cache: true})
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("with the cache, error\n%v\nwant\n%v", gotErr, wantErr)
	}
	if d := configDiff(got, want); d != "" {
		t.Fatalf("with the cache: %s", d)
	}
	return got, gotErr
}

// configDiff describes the first difference between two loaded configs:
// a setting's value, its origin, the sources or the keys.
func configDiff(got, want *Config) string {
	for _, s := range settingsList {
		g, w := s.field(got).Interface(), s.field(want).Interface()
		if !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("%s = %#v, want %#v", s.Key, g, w)
		}
		if got.Origin(s.Key) != want.Origin(s.Key) {
			return fmt.Sprintf("%s from %q, want %q", s.Key, got.Origin(s.Key), want.Origin(s.Key))
		}
	}
	if !reflect.DeepEqual(got.Sources, want.Sources) {
		return fmt.Sprintf("sources %q, want %q", got.Sources, want.Sources)
	}
	if !reflect.DeepEqual(got.Secrets(), want.Secrets()) {
		return "different keys"
	}
	return ""
}

func TestLoad_CacheGivesWhatParsingGives(t *testing.T) {
	content := largeFile(20, 200) + "[[docs.databases]]\npath = \"/srv/incomplete\"\n"
	content = "bogus = 2\nstate_dir = \"/elsewhere\"\n[hooks]\nmax_reason_chars = -5\n[providers.tavily]\nkeys = \"~/keys/tavily\"\nmax_results = 3\n[providers.exa]\nmax_age_hours = 12\n" + content
	file, state, env := cacheSetup(t, "config.toml", content)
	for round := range 3 {
		c, err := loadBoth(t, env, "WEBGATE_SEARCH_MODE=single")
		if round == 0 && len(cacheFiles(t, state)) != 1 {
			t.Fatalf("no cache file written: %v", cacheFiles(t, state))
		}
		if c.Search.Mode != "single" || len(c.Routes.ToolRoutes) != 200 || len(c.Docs.Databases) != 21 || err == nil {
			t.Fatalf("round %d: mode %q, %d routes, %d databases, error %v", round, c.Search.Mode, len(c.Routes.ToolRoutes), len(c.Docs.Databases), err)
		}
	}
	// The entry is there and used.
	l := &loader{env: envMap(env)}
	fi, _ := os.Stat(file)
	fl := l.openCache(file, fi).load(nil)
	if fl == nil || len(fl.values) < 8 || len(fl.problems) != 3 {
		t.Fatalf("no usable cache entry: %+v", fl)
	}
	// The environment still applies over a cached file.
	c, _ := Load(&LoadOptions{Env: append(env, "WEBGATE_DEBUG=0"), Cache: true})
	if c.Debug || c.Origin("debug") != "env WEBGATE_DEBUG" {
		t.Errorf("debug %v from %s", c.Debug, c.Origin("debug"))
	}
	// Skipped tables are left out of a cached load too.
	got, gotErr := Load(&LoadOptions{Env: env, Cache: true, SkipTables: []string{"docs.databases"}})
	want, wantErr := Load(&LoadOptions{Env: env, SkipTables: []string{"docs.databases"}})
	if configDiff(got, want) != "" || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || len(got.Docs.Databases) != 0 {
		t.Errorf("skipping with the cache: %v / %v", gotErr, wantErr)
	}
}

func TestLoad_CacheFollowsTheFile(t *testing.T) {
	file, state, env := cacheSetup(t, "config.yaml", "search:\n  mode: fallback\n")
	if c, _ := loadBoth(t, env); c.Search.Mode != "fallback" {
		t.Fatal(c.Search.Mode)
	}
	// Same size, same modification time: the change time still tells.
	fi, _ := os.Stat(file)
	writeFile(t, file, "search:\n  mode: parallel\n")
	os.Chtimes(file, fi.ModTime(), fi.ModTime())
	if c, _ := loadBoth(t, env); c.Search.Mode != "parallel" {
		t.Fatalf("stale cache: mode %q", c.Search.Mode)
	}
	// Another program: another cache file.
	saved := programIdentity
	t.Cleanup(func() { programIdentity = saved })
	programIdentity = func() (string, bool) { return "other|1|2|3", true }
	loadBoth(t, env)
	if n := len(cacheFiles(t, state)); n != 2 {
		t.Errorf("%d cache files, want one per program", n)
	}
	// An old entry is not used; rewriting removes the stale files of
	// others.
	savedNow := cacheNow
	t.Cleanup(func() { cacheNow = savedNow })
	for _, f := range cacheFiles(t, state) {
		old := time.Now().Add(-2 * cacheMaxAge)
		os.Chtimes(f, old, old)
	}
	cacheNow = func() time.Time { return time.Now().Add(cacheMaxAge + time.Hour) }
	loadBoth(t, env)
	if n := len(cacheFiles(t, state)); n != 1 {
		t.Errorf("%d cache files after pruning, want 1", n)
	}
}

func TestLoad_CacheSkipsAFileJustChanged(t *testing.T) {
	_, state, env := cacheSetup(t, "config.toml", "debug = true\n")
	cacheRacyWindow = time.Hour
	loadBoth(t, env)
	if files := cacheFiles(t, state); len(files) != 0 {
		t.Fatalf("a file changed within the racy window was cached: %v", files)
	}
	cacheRacyWindow = 0
	loadBoth(t, env)
	if files := cacheFiles(t, state); len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
}

func TestLoad_CacheNeverHoldsAKey(t *testing.T) {
	const key = "tvly-CACHED-SECRET-0123456789"
	_, state, env := cacheSetup(t, "config.toml", largeFile(2, 10)+"[providers.tavily]\nkeys = \""+key+"\"\n")
	for range 2 {
		c, _ := loadBoth(t, env)
		if c.KeyCount("tavily") != 1 {
			t.Fatal("key not loaded")
		}
	}
	if files := cacheFiles(t, state); len(files) != 0 {
		t.Fatalf("a file with an inline key was cached: %v", files)
	}
	// A key in the environment is never part of the file's cache.
	_, state, env = cacheSetup(t, "config.toml", largeFile(2, 10))
	for range 2 {
		if c, _ := loadBoth(t, env, "TAVILY_API_KEY="+key); c.KeyCount("tavily") != 1 {
			t.Fatal("key not loaded")
		}
	}
	files := cacheFiles(t, state)
	if len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
	data, _ := os.ReadFile(files[0])
	if bytes.Contains(data, []byte(key)) {
		t.Error("the cache holds a key")
	}
}

func TestLoad_CacheIgnoresFilesThatAreNotPrivate(t *testing.T) {
	file, state, env := cacheSetup(t, "config.toml", "[search]\nmode = \"fallback\"\n")
	loadBoth(t, env)
	files := cacheFiles(t, state)
	if len(files) != 1 {
		t.Fatal(files)
	}
	cached := files[0]
	fi, _ := os.Stat(cached)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("cache file mode %v", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(cached)); di.Mode().Perm() != 0o700 {
		t.Errorf("cache directory mode %v", di.Mode().Perm())
	}
	// Forge a valid entry for the file that says "single": it is used
	// when it is private, and only then.
	forge := func() {
		os.Remove(cached)
		l := &loader{env: envMap(env)}
		fi, _ := os.Stat(file)
		c := l.openCache(file, fi)
		mode, _ := settingByKey("search.mode")
		v, _ := mode.parse("single")
		c.store(&layer{values: []layerValue{{key: "search.mode", value: v, origin: "forged"}}})
	}
	forge()
	forged, _ := os.ReadFile(cached)
	if c, _ := Load(&LoadOptions{Env: env, Cache: true}); c.Search.Mode != "single" {
		t.Fatalf("the forged entry was not used: mode %q", c.Search.Mode)
	}
	for name, setup := range map[string]func(){
		"group-readable": func() { forge(); os.Chmod(cached, 0o640) },
		"symlink": func() {
			other := filepath.Join(t.TempDir(), "entry")
			os.WriteFile(other, forged, 0o600)
			os.Remove(cached)
			os.Symlink(other, cached)
		},
		"hard link": func() {
			forge()
			os.Link(cached, filepath.Join(filepath.Dir(cached), "other"))
		},
		"world-writable directory": func() { forge(); os.Chmod(filepath.Dir(cached), 0o777) },
	} {
		setup()
		if f, _, err := openCacheFile(filepath.Dir(cached), filepath.Base(cached)); err == nil {
			f.Close()
			t.Errorf("%s: cache file opened", name)
		}
		if c, _ := Load(&LoadOptions{Env: env, Cache: true}); c.Search.Mode != "fallback" {
			t.Errorf("%s: mode %q", name, c.Search.Mode)
		}
		os.Chmod(filepath.Dir(cached), 0o700)
		os.Remove(filepath.Join(filepath.Dir(cached), "other"))
	}
	forge()
	os.Chmod(cached, 0o600)
	// A torn or altered entry is ignored.
	for _, bad := range [][]byte{forged[:len(forged)-3], append(forged[:len(forged)-1:len(forged)-1], 'x')} {
		os.Remove(cached)
		os.WriteFile(cached, bad, 0o600)
		if c, _ := loadBoth(t, env); c.Search.Mode != "fallback" {
			t.Errorf("damaged entry: mode %q", c.Search.Mode)
		}
	}
}

func TestLoad_CacheNeedsAnAbsoluteStateDirectory(t *testing.T) {
	file, _, _ := cacheSetup(t, "config.toml", "debug = true\n")
	wd := t.TempDir()
	t.Chdir(wd)
	c, err := Load(&LoadOptions{Env: []string{"WEBGATE_CONFIG=" + file, "WEBGATE_STATE_DIR=relative"}, Cache: true})
	if err != nil || !c.Debug {
		t.Fatal(c.Debug, err)
	}
	if entries, _ := os.ReadDir(wd); len(entries) != 0 {
		t.Errorf("cache written under a relative state directory: %v", entries)
	}
	// No home and no state directory: no cache, no error.
	if c, err := Load(&LoadOptions{ConfigFile: file, Cache: true}); err != nil || !c.Debug {
		t.Fatal(c.Debug, err)
	}
}

func TestPlainCodec_RoundTripsEveryTableAndSetting(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "c.json"), `{"routes":{"tool_routes":[{"name":"a","tests":[]},{"name":"b"}]},"docs":{"databases":[{"keywords":[]}]}}`)
	c, _ := Load(&LoadOptions{ConfigFile: file})
	for _, s := range settingsList {
		v := s.field(c)
		b, ok := appendPlain(nil, v)
		if !ok {
			t.Errorf("%s: not encodable", s.Key)
			continue
		}
		got, ok := readPlain(string(b), s.typ)
		if !ok || !reflect.DeepEqual(got.Interface(), v.Interface()) {
			t.Errorf("%s: %#v came back as %#v", s.Key, v.Interface(), got.Interface())
		}
		if len(b) > 0 {
			if _, ok := readPlain(string(b[:len(b)-1]), s.typ); ok && s.Kind == KindTable {
				t.Errorf("%s: a cut encoding decoded", s.Key)
			}
		}
	}
	if strings.Contains(fmt.Sprint(c.Routes.ToolRoutes[0].Tests == nil), "true") {
		t.Error("an empty list decoded as none")
	}
}

func TestPlainReader_ReadsVarintsAsEncodingBinaryWritesThem(t *testing.T) {
	for _, n := range []int64{0, 1, -1, 63, -64, 127, 128, -129, 1 << 40, math.MaxInt64, math.MinInt64} {
		b := binary.AppendVarint(nil, n)
		b = binary.AppendUvarint(b, uint64(n))
		r := &plainReader{b: string(b), ok: true}
		if v, u := r.varint(), r.uvarint(); v != n || u != uint64(n) || !r.ok || r.b != "" {
			t.Errorf("%d: read %d, %d (ok %v, %d bytes left)", n, v, u, r.ok, len(r.b))
		}
	}
	r := &plainReader{b: "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", ok: true}
	if r.uvarint(); r.ok {
		t.Error("an overflowing varint was read")
	}
}

// TestPlainCodec_DecodesTablesWithoutReflectionAsWithIt checks the
// decoders of the lists of tables against the reflective one, on
// generated lists.
func TestPlainCodec_DecodesTablesWithoutReflectionAsWithIt(t *testing.T) {
	if !plainLayoutsMatch() {
		t.Fatal("the table types changed: update toolRoutes, databases and plainLayoutsMatch")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, typ := range []reflect.Type{toolRoutesType, databasesType} {
		for range 500 {
			raw := randomRaw(rng, typ, 0)
			v, ok := decodePlain(raw, typ)
			if !ok {
				continue
			}
			b, _ := appendPlain(nil, v)
			fast, ok := readPlain(string(b), typ)
			r := &plainReader{b: string(b), ok: true}
			slow := reflect.New(typ).Elem()
			r.value(slow)
			if !ok || !r.ok || !reflect.DeepEqual(fast.Interface(), slow.Interface()) || !reflect.DeepEqual(fast.Interface(), v.Interface()) {
				t.Fatalf("%v: fast %#v, reflective %#v, want %#v", typ, fast.Interface(), slow.Interface(), v.Interface())
			}
			if len(b) > 1 {
				if _, ok := readPlain(string(b[:len(b)-1]), typ); ok {
					t.Fatalf("%v: a cut encoding decoded", typ)
				}
			}
		}
	}
}
