package hookenv

import (
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/hooks/worker"
)

// maxConfigs bounds how many configurations a [ConfigCache] keeps: one per
// environment its callers bring (a session's hook calls all bring the
// same one).
const maxConfigs = 8

// configRacyWindow is how long after a file's last change a configuration
// read from it is not kept: a file changed again within one tick of the
// file system's clock would look unchanged (tests set it to 0).
var configRacyWindow = 2 * time.Second

// ConfigCache keeps loaded configurations in memory, so that a warm worker
// loads the configuration once rather than at every call: keyed by the
// call's whole environment (every variable the configuration reads,
// WEBGATE_*, the providers' key variables, XDG_*, HOME, CLAUDE_*, is in
// it; the whole of it is the key so that no variable the loader comes to
// read can serve a stale configuration, and a runtime gives every hook
// call of a session the same environment), and kept while the files it
// was read from are unchanged: the configuration file (and the other
// files of the configuration directory that would take its place, or the
// file WEBGATE_CONFIG names), the docs and tool routes files it names and
// the providers' key files, each by device, inode, size, mode and
// modification time. The routers built from a configuration it keeps are
// kept with it ([HookRoutes]). A configuration whose
// loading reported a problem, or read a file changed within two seconds,
// is not kept.
type ConfigCache struct {
	load    func(env []string) (*config.Config, error)
	mu      sync.Mutex
	entries map[string]*configEntry
	loads   atomic.Int64
	builds  atomic.Int64
}

type configEntry struct {
	cfg   *config.Config
	files []fileStamp
	used  time.Time
	// routes are the routers built for cfg, by what they hold.
	routesMu sync.Mutex
	routes   map[routesKey]hooks.Routes
}

// routesKey says which routers a [hooks.Routes] holds.
type routesKey struct{ docs, tools bool }

// NewConfigCache returns an empty cache that loads with load, or, when
// load is nil, with [config.Load] of the environment (and the HOME it
// names) and the parsed file's cache on disk ([config.LoadOptions].Cache),
// as the worker process loads it: a warm worker's first load then reads
// what the worker that started it parsed.
func NewConfigCache(load func(env []string) (*config.Config, error)) *ConfigCache {
	if load == nil {
		load = func(env []string) (*config.Config, error) {
			home, _ := worker.EnvList(env)("HOME")
			return config.Load(&config.LoadOptions{Env: env, HomeDir: home, Cache: true})
		}
	}
	return &ConfigCache{load: load, entries: map[string]*configEntry{}}
}

// Loads reports how many times the cache has loaded a configuration
// rather than returned one it kept.
func (c *ConfigCache) Loads() int64 { return c.loads.Load() }

// Load returns the configuration of env: the one kept, when its files
// have not changed since, or one loaded now. The configuration returned is
// shared by the calls that get it: it is only read.
func (c *ConfigCache) Load(env []string) (*config.Config, error) {
	key := envKey(env)
	c.mu.Lock()
	e := c.entries[key]
	c.mu.Unlock()
	if e != nil && unchanged(e.files) {
		c.mu.Lock()
		e.used = time.Now()
		c.mu.Unlock()
		return e.cfg, nil
	}
	started := time.Now()
	cfg, err := c.load(env)
	c.loads.Add(1)
	if err != nil || cfg == nil {
		c.forget(key)
		return cfg, err
	}
	files, settled := stampFiles(cfg.Files(), started)
	if !settled {
		c.forget(key)
		return cfg, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key] = &configEntry{cfg: cfg, files: files, used: time.Now()}
	for len(c.entries) > maxConfigs {
		var oldest string
		for k, e := range c.entries {
			if oldest == "" || e.used.Before(c.entries[oldest].used) {
				oldest = k
			}
		}
		delete(c.entries, oldest)
	}
	return cfg, nil
}

// RouteBuilds reports how many times the cache has built the routers of
// a configuration it keeps.
func (c *ConfigCache) RouteBuilds() int64 { return c.builds.Load() }

// routes returns the routers and warnings of [HookRoutes] for cfg, built
// once for a configuration the cache keeps (the routers are safe to share:
// a tool route compiles its pattern once, when first needed), and false
// when cfg is not one it keeps. The routes files it names are among the
// files whose change makes the configuration load again
// ([config.Config.Files]).
func (c *ConfigCache) routes(cfg *config.Config, withDocs, withTools bool) (hooks.Routes, bool) {
	c.mu.Lock()
	var e *configEntry
	for _, x := range c.entries {
		if x.cfg == cfg {
			e = x
			break
		}
	}
	c.mu.Unlock()
	if e == nil {
		return hooks.Routes{}, false
	}
	key := routesKey{withDocs, withTools}
	e.routesMu.Lock()
	defer e.routesMu.Unlock()
	if r, ok := e.routes[key]; ok {
		return r, true
	}
	r := loadHookRoutes(cfg, withDocs, withTools)
	r.Warnings = slices.Clip(r.Warnings) // a caller's append copies
	c.builds.Add(1)
	if e.routes == nil {
		e.routes = map[routesKey]hooks.Routes{}
	}
	e.routes[key] = r
	return r, true
}

func (c *ConfigCache) forget(key string) {
	c.mu.Lock()
	delete(c.entries, key)
	c.mu.Unlock()
}

// envKey is the environment as a cache key: its variables sorted, without
// the front's start time (which differs at every call and is not
// configuration).
func envKey(env []string) string {
	kept := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, worker.FrontEnv+"=") })
	slices.Sort(kept)
	return strings.Join(kept, "\x00")
}

// fileStamp is what a file was when a configuration was read from it: its
// path and information, nil when it did not exist.
type fileStamp struct {
	path string
	info os.FileInfo
}

// stampFiles stamps the files; settled is false when one of them changed
// within [configRacyWindow] of since, so that a change made while it was
// read could go unnoticed.
func stampFiles(paths []string, since time.Time) (stamps []fileStamp, settled bool) {
	stamps = make([]fileStamp, len(paths))
	for i, p := range paths {
		stamps[i].path = p
		if fi, err := os.Stat(p); err == nil {
			stamps[i].info = fi
			if !fi.ModTime().Before(since.Add(-configRacyWindow)) {
				return nil, false
			}
		}
	}
	return stamps, true
}

// unchanged reports whether every stamped file is as it was.
func unchanged(stamps []fileStamp) bool {
	for _, s := range stamps {
		fi, err := os.Stat(s.path)
		switch {
		case err != nil && s.info == nil:
			continue
		case err != nil || s.info == nil:
			return false
		case !os.SameFile(fi, s.info) || fi.Size() != s.info.Size() || !fi.ModTime().Equal(s.info.ModTime()) || fi.Mode() != s.info.Mode():
			return false
		}
	}
	return true
}
