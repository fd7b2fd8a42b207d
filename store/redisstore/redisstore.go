// Package redisstore is the shared store backend: a Redis server (6.2 or
// later, or a compatible one such as Valkey; not Redis Cluster) that several machines or containers use
// together, through github.com/redis/go-redis/v9.
//
// Use it through package store: the URLs redis://[user:password@]host:port/db
// and rediss://… (TLS) with storeurl.Open. The URL may carry go-redis's
// connection options (dial_timeout=, read_timeout=, …) and prefix=, the
// namespace of every key (default "webgate:"), so that several webgate
// installations, or other applications, can share one database.
//
// go-redis logs some failures (a refused dial) through one process-wide
// logger that writes to stderr; the first Open silences it, since every
// failure is also returned as an error.
//
// # Atomicity
//
// Every operation that reads and writes runs as one Lua script, which
// Redis executes atomically: a conditional write checks the version and
// writes in one step, counters are INCRBY in one script per batch, and an
// append assigns the record's ID and trims the log in one step. Updates
// (store.Store.Update) are optimistic: read, compute, conditional write,
// retried on conflict. Clear is the exception: it scans for the keys to
// delete, so writes made while it runs may survive it.
//
// # Layout
//
// A value is a hash (fields v and n: value and version) at
// <prefix>v:<key> with Redis's own expiry; a counter is an integer at
// <prefix>c:<name>; a log is a sorted set at <prefix>l:<name>, scored by
// record ID, with its ID sequence at <prefix>s:<name>; <prefix>seq:version
// numbers writes; a bound's index is a sorted set at <prefix>b:<bound
// prefix>. Values and counters expire on the server's clock; log
// timestamps come from the writer's clock.
//
// # Timeouts
//
// Dialing, reading and writing have short timeouts (250ms by default, or
// the caller's per-call bound when longer, [Config.CallTimeout]; dialing
// also the caller's bound on opening, [Config.OpenTimeout]) and the
// caller's context deadline, when sooner, wins. Commands are never
// retried by the client (a retried increment could count twice): a
// failure is returned to the caller, who fails open.
package redisstore

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/webgate-dev/webgate/store/driver"
)

// Defaults of [Config].
const (
	DefaultPrefix      = "webgate:"
	DefaultDialTimeout = 250 * time.Millisecond
	DefaultIOTimeout   = 250 * time.Millisecond
	DefaultPoolSize    = 4
)

// Config configures a [Store]. Non-zero fields win over the URL's
// options, which win over the defaults.
type Config struct {
	// URL is redis://[user:password@]host[:port][/db][?options] or
	// rediss://… for TLS. Required.
	URL string `koanf:"url"`
	// Prefix namespaces every key; default [DefaultPrefix], or the URL's
	// prefix= option.
	Prefix string `koanf:"prefix"`
	// DialTimeout bounds connecting (the TLS handshake included); default
	// [DefaultDialTimeout], or [Config.OpenTimeout] when longer.
	DialTimeout time.Duration `koanf:"dial_timeout"`
	// IOTimeout bounds each read and write on a connection, and the wait
	// for a free connection; default [DefaultIOTimeout].
	IOTimeout time.Duration `koanf:"io_timeout"`
	// PoolSize is the most connections kept; default [DefaultPoolSize].
	PoolSize int `koanf:"pool_size"`
	// CallTimeout is the bound its caller sets on each call (the store's
	// timeout): a dial or I/O timeout set neither here nor in the URL is
	// at least as long, so that a caller who allows a slow server two
	// seconds does not have its connection cut at the default.
	CallTimeout time.Duration `koanf:"-"`
	// OpenTimeout is the bound its caller sets on opening (the store's
	// open timeout): a dial timeout set neither here nor in the URL is at
	// least as long, so that the connection Open makes, TLS handshake
	// included, has the time opening is given rather than a call's.
	OpenTimeout time.Duration `koanf:"-"`
	// TLSConfig replaces the TLS settings of a rediss:// URL (which
	// verify the server's certificate for the URL's host, TLS 1.2 or
	// later).
	TLSConfig *tls.Config `koanf:"-"`
	// Now is the clock for log timestamps and for reporting expiry times;
	// nil means time.Now. Expiry itself runs on the server's clock.
	Now func() time.Time `koanf:"-"`
}

// Store is the Redis backend. It is safe for concurrent use.
type Store struct {
	rdb    *redis.Client
	prefix string
	now    func() time.Time
	closed atomic.Bool
}

var (
	_ driver.Store = (*Store)(nil)
	_ driver.Namer = (*Store)(nil)
)

// Open connects to the server cfg.URL names and checks that it answers,
// within ctx's deadline, opening the pool's connections at once: a server
// that is down or slow fails Open with an error wrapping ErrUnavailable
// or ErrTimeout. Errors never contain the URL's password.
func Open(ctx context.Context, cfg *Config) (*Store, error) {
	if cfg == nil || cfg.URL == "" {
		return nil, fmt.Errorf("%w: redis: no URL", driver.ErrInvalid)
	}
	opt, prefix, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Prefix != "" {
		prefix = cfg.Prefix
	}
	dial, io := max(DefaultDialTimeout, cfg.CallTimeout, cfg.OpenTimeout), max(DefaultIOTimeout, cfg.CallTimeout)
	opt.DialTimeout = pick(cfg.DialTimeout, opt.DialTimeout, dial)
	opt.ReadTimeout = pick(cfg.IOTimeout, opt.ReadTimeout, io)
	opt.WriteTimeout = pick(cfg.IOTimeout, opt.WriteTimeout, io)
	opt.PoolTimeout = pick(cfg.IOTimeout, opt.PoolTimeout, io)
	switch {
	case cfg.PoolSize > 0:
		opt.PoolSize = cfg.PoolSize
	case opt.PoolSize <= 0:
		opt.PoolSize = DefaultPoolSize
	}
	if cfg.TLSConfig != nil && opt.TLSConfig != nil {
		opt.TLSConfig = cfg.TLSConfig.Clone()
	}
	opt.ContextTimeoutEnabled = true
	opt.MaxRetries = -1   // a retried INCRBY could count twice
	opt.DialerRetries = 1 // one dial per attempt: fail fast when down
	opt.Protocol = 2      // no HELLO round trip, works with older servers
	opt.DisableIdentity = true
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	quietOnce.Do(func() { redis.SetLogger(quiet{}) })
	s := &Store{rdb: redis.NewClient(opt), prefix: prefix, now: time.Now}
	if cfg.Now != nil {
		s.now = cfg.Now
	}
	if err := s.warm(ctx, opt.PoolSize); err != nil {
		s.rdb.Close()
		return nil, classify(ctx, err)
	}
	return s, nil
}

// warm checks that the server answers, with n round trips at once, so
// that the pool dials n connections (each a TCP and maybe a TLS
// handshake) under ctx, the bound on opening, rather than leaving the
// dials to the first calls that run at once, under a call's bound. It
// fails only when no round trip succeeds.
func (s *Store) warm(ctx context.Context, n int) error {
	// Each ping holds its own connection until every ping is over: a
	// ping done early would otherwise hand its connection to a later one
	// and the pool would dial fewer than n.
	conns := make([]*redis.Conn, n)
	for i := range conns {
		conns[i] = s.rdb.Conn()
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	errs := make(chan error, n)
	for _, c := range conns {
		go func() { errs <- c.Ping(ctx).Err() }()
	}
	var first error
	ok := false
	for range n {
		if err := <-errs; err == nil {
			ok = true
		} else if first == nil {
			first = err
		}
	}
	if ok {
		return nil
	}
	return first
}

func pick(explicit, fromURL, def time.Duration) time.Duration {
	switch {
	case explicit > 0:
		return explicit
	case fromURL > 0:
		return fromURL
	}
	return def
}

// parseURL reads a redis:// or rediss:// URL with go-redis's rules, after
// taking out the prefix option. Its errors never quote the password.
func parseURL(raw string) (*redis.Options, string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
		return nil, "", fmt.Errorf("%w: malformed redis URL (want redis://host:port/db or rediss://…)", driver.ErrInvalid)
	}
	q := u.Query()
	prefix := DefaultPrefix
	if q.Has("prefix") {
		prefix = q.Get("prefix")
		q.Del("prefix")
		u.RawQuery = q.Encode()
	}
	opt, err := redis.ParseURL(u.String())
	if err != nil {
		msg := err.Error()
		if pw, ok := u.User.Password(); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
		return nil, "", fmt.Errorf("%w: redis URL: %s", driver.ErrInvalid, msg)
	}
	return opt, prefix, nil
}

// Name returns "redis".
func (s *Store) Name() string { return "redis" }

// Prefix returns the namespace of the store's keys.
func (s *Store) Prefix() string { return s.prefix }

func (s *Store) vkey(key string) string    { return s.prefix + "v:" + key }
func (s *Store) ckey(name string) string   { return s.prefix + "c:" + name }
func (s *Store) lkey(name string) string   { return s.prefix + "l:" + name }
func (s *Store) skey(name string) string   { return s.prefix + "s:" + name }
func (s *Store) bkey(prefix string) string { return s.prefix + "b:" + prefix }
func (s *Store) versionKey() string        { return s.prefix + "seq:version" }

func (s *Store) check(ctx context.Context) error {
	if s.closed.Load() {
		return driver.ErrClosed
	}
	return ctx.Err()
}

var getScript = redis.NewScript(`
local r = redis.call('HMGET', KEYS[1], 'v', 'n')
if not r[2] then return false end
return {r[1], r[2], redis.call('PTTL', KEYS[1])}
`)

// Get implements [driver.Store].
func (s *Store) Get(ctx context.Context, key string) (driver.Entry, error) {
	if err := s.check(ctx); err != nil {
		return driver.Entry{}, classify(ctx, err)
	}
	now := s.now()
	res, err := getScript.Run(ctx, s.rdb, []string{s.vkey(key)}).Slice()
	if errors.Is(err, redis.Nil) {
		return driver.Entry{}, driver.ErrNotFound
	}
	if err != nil {
		return driver.Entry{}, classify(ctx, err)
	}
	if len(res) != 3 {
		return driver.Entry{}, fmt.Errorf("%w: unexpected reply to get", driver.ErrCorrupt)
	}
	val, _ := res[0].(string)
	ver, err1 := strconv.ParseInt(fmt.Sprint(res[1]), 10, 64)
	pttl, ok := res[2].(int64)
	if err1 != nil || !ok {
		return driver.Entry{}, fmt.Errorf("%w: malformed value record", driver.ErrCorrupt)
	}
	e := driver.Entry{Value: []byte(val), Version: ver}
	if pttl > 0 {
		e.Expires = now.Add(time.Duration(pttl) * time.Millisecond)
	}
	return e, nil
}

// putScript writes a value if its version matches, numbers the write, and
// enforces a bound by evicting the index's oldest entries.
// KEYS: value, version sequence[, bound index]. ARGV: value, ifVersion,
// ttl ms, max entries.
var putScript = redis.NewScript(`
local want = tonumber(ARGV[2])
if want >= 0 then
  local cur = redis.call('HGET', KEYS[1], 'n')
  local have = 0
  if cur then have = tonumber(cur) end
  if have ~= want then return -1 end
end
local ver = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'n', ver)
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
else
  redis.call('PERSIST', KEYS[1])
end
if KEYS[3] then
  redis.call('ZADD', KEYS[3], ver, KEYS[1])
  local extra = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[4])
  if extra > 0 then
    local old = redis.call('ZPOPMIN', KEYS[3], extra)
    for i = 1, #old, 2 do redis.call('DEL', old[i]) end
  end
end
return ver
`)

// Put implements [driver.Store]. A bound is kept with an index of the
// values written under its prefix; values deleted or expired stay in the
// index until evicted, so a bounded prefix may hold fewer live values
// than its bound, never more.
func (s *Store) Put(ctx context.Context, key string, value []byte, ifVersion int64, opts driver.WriteOptions) (int64, error) {
	if err := s.check(ctx); err != nil {
		return 0, classify(ctx, err)
	}
	keys := []string{s.vkey(key), s.versionKey()}
	maxEntries := 0
	if b := opts.Bound; b != nil && b.MaxEntries > 0 {
		keys = append(keys, s.bkey(b.Prefix))
		maxEntries = b.MaxEntries
	}
	if value == nil {
		value = []byte{}
	}
	ver, err := putScript.Run(ctx, s.rdb, keys, value, ifVersion, ttlMS(opts.TTL), maxEntries).Int64()
	if err != nil {
		return 0, classify(ctx, err)
	}
	if ver < 0 {
		return 0, driver.ErrConflict
	}
	return ver, nil
}

func ttlMS(ttl time.Duration) int64 {
	if ttl <= 0 {
		return 0
	}
	return max(ttl.Milliseconds(), 1)
}

// Delete implements [driver.Store].
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := s.check(ctx); err != nil {
		return classify(ctx, err)
	}
	return classify(ctx, s.rdb.Del(ctx, s.vkey(key)).Err())
}

// incrScript adds each delta and gives a counter without expiry the ttl.
// KEYS: counters. ARGV: ttl ms, then one delta per counter.
var incrScript = redis.NewScript(`
local ttl = tonumber(ARGV[1])
local out = {}
for i, k in ipairs(KEYS) do
  out[i] = redis.call('INCRBY', k, ARGV[i + 1])
  if ttl > 0 and redis.call('PTTL', k) == -1 then redis.call('PEXPIRE', k, ttl) end
end
return out
`)

// Incr implements [driver.Store].
func (s *Store) Incr(ctx context.Context, deltas []driver.Delta, ttl time.Duration) ([]int64, error) {
	if err := s.check(ctx); err != nil {
		return nil, classify(ctx, err)
	}
	keys := make([]string, len(deltas))
	args := make([]any, 0, len(deltas)+1)
	args = append(args, ttlMS(ttl))
	for i, d := range deltas {
		keys[i] = s.ckey(d.Name)
		args = append(args, d.N)
	}
	out, err := incrScript.Run(ctx, s.rdb, keys, args...).Int64Slice()
	if err != nil {
		return nil, classify(ctx, err)
	}
	if len(out) != len(deltas) {
		return nil, fmt.Errorf("%w: unexpected reply to incr", driver.ErrCorrupt)
	}
	return out, nil
}

// Counters implements [driver.Store].
func (s *Store) Counters(ctx context.Context, prefix string) (map[string]int64, error) {
	if err := s.check(ctx); err != nil {
		return nil, classify(ctx, err)
	}
	out := map[string]int64{}
	cut := len(s.ckey(""))
	err := s.scan(ctx, s.ckey(prefix), func(keys []string) error {
		vals, err := s.rdb.MGet(ctx, keys...).Result()
		if err != nil {
			return err
		}
		for i, v := range vals {
			str, ok := v.(string)
			if !ok {
				continue // expired since the scan
			}
			n, err := strconv.ParseInt(str, 10, 64)
			if err != nil {
				return fmt.Errorf("%w: counter is not an integer", driver.ErrCorrupt)
			}
			out[keys[i][cut:]] = n
		}
		return nil
	})
	if err != nil {
		return nil, classify(ctx, err)
	}
	return out, nil
}

// scan calls f with batches of the keys that start with prefix.
func (s *Store) scan(ctx context.Context, prefix string, f func(keys []string) error) error {
	match := globEscape(prefix) + "*"
	var cursor uint64
	for {
		keys, next, err := s.rdb.Scan(ctx, cursor, match, 1000).Result()
		if err != nil {
			return err
		}
		if len(keys) > 0 {
			if err := f(keys); err != nil {
				return err
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

// globEscape quotes the characters SCAN's MATCH pattern treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\', '^', '-':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// appendScript numbers a record, adds it and trims the log.
// KEYS: log, sequence. ARGV: data, now ms, max records, oldest ms kept (or -1).
// A member is "<id>:<ms>:<data>", unique by its ID.
var appendScript = redis.NewScript(`
local id = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], id, id .. ':' .. ARGV[2] .. ':' .. ARGV[1])
local maxn = tonumber(ARGV[3])
if maxn > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(maxn + 1)) end
local cut = tonumber(ARGV[4])
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
if cut >= 0 and oldest then
  local a = string.find(oldest, ':', 1, true)
  local b = string.find(oldest, ':', a + 1, true)
  if tonumber(string.sub(oldest, a + 1, b - 1)) >= cut then cut = -1 end
end
if cut >= 0 then
  while true do
    local old = redis.call('ZRANGE', KEYS[1], 0, 99)
    local n = 0
    for _, m in ipairs(old) do
      local a = string.find(m, ':', 1, true)
      local b = string.find(m, ':', a + 1, true)
      if tonumber(string.sub(m, a + 1, b - 1)) < cut then n = n + 1 else break end
    end
    if n > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - 1) end
    if n < 100 then break end
  end
end
return id
`)

// Append implements [driver.Store].
func (s *Store) Append(ctx context.Context, log string, data []byte, keep driver.Retention) (driver.Record, error) {
	if err := s.check(ctx); err != nil {
		return driver.Record{}, classify(ctx, err)
	}
	now := s.now()
	ms := now.UnixMilli()
	cut := int64(-1)
	if keep.MaxAge > 0 {
		cut = max(ms-keep.MaxAge.Milliseconds(), 0)
	}
	if data == nil {
		data = []byte{}
	}
	id, err := appendScript.Run(ctx, s.rdb, []string{s.lkey(log), s.skey(log)}, data, ms, keep.MaxRecords, cut).Int64()
	if err != nil {
		return driver.Record{}, classify(ctx, err)
	}
	return driver.Record{ID: id, Time: time.UnixMilli(ms), Data: append([]byte{}, data...)}, nil
}

// parseMember reads a log member "<id>:<ms>:<data>".
func parseMember(m string) (driver.Record, error) {
	a := strings.IndexByte(m, ':')
	if a < 0 {
		return driver.Record{}, fmt.Errorf("%w: malformed log record", driver.ErrCorrupt)
	}
	b := strings.IndexByte(m[a+1:], ':')
	if b < 0 {
		return driver.Record{}, fmt.Errorf("%w: malformed log record", driver.ErrCorrupt)
	}
	b += a + 1
	id, err1 := strconv.ParseInt(m[:a], 10, 64)
	ms, err2 := strconv.ParseInt(m[a+1:b], 10, 64)
	if err1 != nil || err2 != nil {
		return driver.Record{}, fmt.Errorf("%w: malformed log record", driver.ErrCorrupt)
	}
	return driver.Record{ID: id, Time: time.UnixMilli(ms), Data: []byte(m[b+1:])}, nil
}

// listPage is how many records List reads per round trip when it pages
// back from the newest.
const listPage = 256

// List implements [driver.Store]. With a Limit it pages back from the
// newest record and stops once it has Limit records, or a whole page is
// older than Since (records are appended in time order, give or take the
// skew between the writers' clocks).
func (s *Store) List(ctx context.Context, log string, q driver.ListQuery) ([]driver.Record, error) {
	if err := s.check(ctx); err != nil {
		return nil, classify(ctx, err)
	}
	keep := func(r driver.Record) bool {
		return q.Since.IsZero() || !r.Time.Before(q.Since.Truncate(time.Millisecond))
	}
	after := "(" + strconv.FormatInt(q.After, 10)
	var out []driver.Record
	if q.Limit <= 0 {
		ms, err := s.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: s.lkey(log), Start: after, Stop: "+inf", ByScore: true}).Result()
		if err != nil {
			return nil, classify(ctx, err)
		}
		for _, m := range ms {
			r, err := parseMember(m)
			if err != nil {
				return nil, err
			}
			if keep(r) {
				out = append(out, r)
			}
		}
		return out, nil
	}
	for offset := int64(0); len(out) < q.Limit; offset += listPage {
		ms, err := s.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: s.lkey(log), Start: "+inf", Stop: after, ByScore: true, Rev: true, Offset: offset, Count: listPage}).Result()
		if err != nil {
			return nil, classify(ctx, err)
		}
		kept := 0
		for _, m := range ms {
			r, err := parseMember(m)
			if err != nil {
				return nil, err
			}
			if keep(r) && len(out) < q.Limit {
				out = append(out, r)
				kept++
			}
		}
		if len(ms) < listPage || kept == 0 {
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// Clear implements [driver.Store]. Log ID sequences survive, so IDs are
// never reused.
func (s *Store) Clear(ctx context.Context, prefix string) (int, error) {
	if err := s.check(ctx); err != nil {
		return 0, classify(ctx, err)
	}
	total := 0
	var removed []string
	unlink := func(collect bool) func([]string) error {
		return func(keys []string) error {
			n, err := s.rdb.Unlink(ctx, keys...).Result()
			total += int(n)
			if collect {
				removed = append(removed, keys...)
			}
			return err
		}
	}
	for _, step := range []struct {
		prefix  string
		collect bool
	}{
		{s.vkey(prefix), true},
		{s.ckey(prefix), false},
		{s.lkey(prefix), false},
	} {
		if err := s.scan(ctx, step.prefix, unlink(step.collect)); err != nil {
			return 0, classify(ctx, err)
		}
	}
	// Bound indexes: drop those under the prefix, and the removed values
	// from those above it.
	bcut := len(s.bkey(""))
	err := s.scan(ctx, s.bkey(""), func(keys []string) error {
		for _, k := range keys {
			bp := k[bcut:]
			switch {
			case strings.HasPrefix(bp, prefix):
				if err := s.rdb.Unlink(ctx, k).Err(); err != nil {
					return err
				}
			case strings.HasPrefix(prefix, bp) && len(removed) > 0:
				members := make([]any, len(removed))
				for i, r := range removed {
					members[i] = r
				}
				if err := s.rdb.ZRem(ctx, k, members...).Err(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, classify(ctx, err)
	}
	return total, nil
}

// Close implements [driver.Store].
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	if err := s.rdb.Close(); err != nil && !errors.Is(err, redis.ErrClosed) {
		return classify(context.Background(), err)
	}
	return nil
}

// classify wraps err in the sentinel that describes it. Server errors are
// told apart by the error code Redis puts first in its error replies
// (OOM, BUSY, LOADING, …), which is part of its protocol.
func classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, redis.Nil) {
		return driver.ErrNotFound
	}
	if driver.Classified(err) {
		return err
	}
	ctxErr := ctx.Err()
	if errors.Is(ctxErr, context.Canceled) || (ctxErr == nil && errors.Is(err, context.Canceled)) {
		return driver.Wrap(context.Canceled, err)
	}
	var ne net.Error
	switch {
	case ctxErr != nil, errors.Is(err, context.DeadlineExceeded), errors.Is(err, redis.ErrPoolTimeout),
		errors.As(err, &ne) && ne.Timeout():
		return driver.Wrap(driver.ErrTimeout, err)
	case errors.Is(err, redis.ErrClosed):
		return driver.Wrap(driver.ErrClosed, err)
	case redis.IsOOMError(err):
		return driver.Wrap(driver.ErrFull, err)
	case redis.HasErrorPrefix(err, "BUSY"):
		return driver.Wrap(driver.ErrBusy, err)
	}
	return driver.Wrap(driver.ErrUnavailable, err)
}

// quiet discards go-redis's log lines. The client logs through one
// process-wide logger, straight to stderr by default: a refused dial would
// reach a hook's stderr unformatted and past webgate's redaction. Every
// failure is returned as an error instead, so opening a Redis store
// silences that logger once for the process.
type quiet struct{}

// Printf implements go-redis's logging interface by dropping the line.
func (quiet) Printf(context.Context, string, ...any) {}

var quietOnce sync.Once
