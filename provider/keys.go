package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"

	"github.com/webgate-dev/webgate/internal/safefile"
	"github.com/webgate-dev/webgate/internal/textfmt"
)

// Key is one API key. Its String and GoString methods print a redacted label
// ("key#2"), so a Key can be logged or wrapped in errors without leaking the
// secret; only [Key.Secret] returns the value, for the request header.
type Key struct {
	// The value sits behind a pointer to a string so that fmt, which
	// cannot call String on an unexported field, prints an address rather
	// than the secret when a Key is held in another type's unexported
	// field (fmt dereferences pointers only to arrays, slices, structs and
	// maps).
	secret *string
	index  int
}

// Secret returns the key's value. Call it only to set a request header.
func (k Key) Secret() string {
	if k.secret == nil {
		return ""
	}
	return *k.secret
}

// Index returns the key's position in its pool, starting at 1.
func (k Key) Index() int { return k.index }

// String returns a redacted label such as "key#2".
func (k Key) String() string { return fmt.Sprintf("key#%d", k.index) }

// GoString returns the same redacted label as String, so %#v is safe too.
func (k Key) GoString() string { return k.String() }

// KeySource hands out the keys to try for one request and learns the outcome
// of every attempt. Implementations must be safe for concurrent use.
type KeySource interface {
	// Keys returns the keys to try for one request, in order. An empty
	// slice means the provider is not configured.
	Keys(ctx context.Context) []Key
	// Report tells the source how an attempt with k ended: "" for success,
	// otherwise the failure's kind. A source may use it to skip a revoked or
	// exhausted key for a while; Pool records it in its statistics.
	Report(k Key, kind Kind)
}

// ErrorReporter is an optional interface of a [KeySource]. When a source
// implements it, [HTTP.Do] reports a failed attempt with ReportError,
// which carries the whole error (its Retry-After, status and tag), instead
// of Report; successes are still reported with Report. A source that
// remembers key health across processes uses it to cool a rate-limited key
// down for exactly as long as the provider asked.
type ErrorReporter interface {
	ReportError(k Key, err *Error)
}

// Order is how a [Pool] orders its keys for each request.
type Order string

// The key orders.
const (
	// Shuffle starts each request with the keys in a new random order, which
	// spreads credit use over the pool. The default.
	Shuffle Order = "shuffle"
	// RoundRobin starts each request at the key after the one the previous
	// request started at.
	RoundRobin Order = "round-robin"
)

// PoolConfig configures a [Pool]. The zero value is valid.
type PoolConfig struct {
	// Order is how keys are ordered per request; default [Shuffle].
	Order Order
	// Rand is the random source for [Shuffle]; nil uses a randomly seeded
	// one. Tests inject a fixed source.
	Rand *rand.Rand
}

// Pool is the standard [KeySource]: a fixed list of keys, reordered for each
// request. It is safe for concurrent use.
type Pool struct {
	keys  []Key
	order Order

	mu    sync.Mutex
	rnd   *rand.Rand
	next  int
	stats map[int]map[Kind]int
}

var _ KeySource = (*Pool)(nil)

// NewPool returns a pool of the given key values. Blank values are dropped;
// duplicates are kept once. A nil cfg means the defaults.
func NewPool(keys []string, cfg *PoolConfig) *Pool {
	var c PoolConfig
	if cfg != nil {
		c = *cfg
	}
	if c.Order == "" {
		c.Order = Shuffle
	}
	if c.Rand == nil {
		c.Rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	p := &Pool{order: c.Order, rnd: c.Rand, stats: map[int]map[Kind]int{}}
	seen := map[string]bool{}
	for _, k := range keys {
		k = strings.TrimSpace(k)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		secret := k
		p.keys = append(p.keys, Key{secret: &secret, index: len(p.keys) + 1})
	}
	return p
}

// Len returns the number of keys in the pool.
func (p *Pool) Len() int {
	if p == nil {
		return 0
	}
	return len(p.keys)
}

// Keys implements [KeySource].
func (p *Pool) Keys(context.Context) []Key {
	if p.Len() == 0 {
		return nil
	}
	out := make([]Key, len(p.keys))
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.order {
	case RoundRobin:
		start := p.next % len(p.keys)
		p.next++
		for i := range out {
			out[i] = p.keys[(start+i)%len(p.keys)]
		}
	default:
		for i, j := range p.rnd.Perm(len(p.keys)) {
			out[i] = p.keys[j]
		}
	}
	return out
}

// Report implements [KeySource]; it counts outcomes per key (see
// [Pool.Outcomes]).
func (p *Pool) Report(k Key, kind Kind) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.stats[k.index]
	if m == nil {
		m = map[Kind]int{}
		p.stats[k.index] = m
	}
	if kind == "" {
		kind = "ok"
	}
	m[kind]++
}

// Outcomes returns how many attempts with the key at index (1-based) ended
// in each kind ("ok" for success).
func (p *Pool) Outcomes(index int) map[Kind]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[Kind]int{}
	for k, v := range p.stats[index] {
		out[k] = v
	}
	return out
}

// ErrKeyFile is wrapped by [ParseKeys] errors about a key file that cannot
// be read or parsed.
var ErrKeyFile = errors.New("key file")

// ParseKeys turns a key specification into key values, accepting exactly
// what the older Node hooks accept:
//
//   - a single key: "tvly-abc";
//   - an inline pool separated by "|": "k1|k2|k3";
//   - a path to a file holding a JSON array of keys, or one key per line
//     (blank lines and lines starting with "#" are ignored).
//
// A value is taken for a path when it starts with "/", "~/", "./" or "../",
// or names a file that exists. ParseKeys does not expand "~": callers that
// accept it (the configuration loader does) expand it first. A path that cannot be read is an error that
// names the path and never the keys. An empty spec yields no keys and no
// error.
func ParseKeys(spec string) ([]string, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, nil
	}
	if looksLikePath(spec) {
		return readKeyFile(spec)
	}
	return textfmt.NonBlank(strings.Split(spec, "|")), nil
}

// IsKeyPath reports whether a key specification is written as the path
// of a key file: it starts with "/", "~/", "./" or "../" and holds no "|"
// and no newline (which an inline pool or a key may). [ParseKeys] also
// takes a value for a path when it names a file that exists.
func IsKeyPath(spec string) bool {
	if strings.ContainsAny(spec, "|\n") {
		return false
	}
	for _, p := range []string{"/", "~/", "./", "../"} {
		if strings.HasPrefix(spec, p) {
			return true
		}
	}
	return false
}

// looksLikePath reports whether [ParseKeys] reads s as a key file's path:
// written as one ([IsKeyPath]), or naming a regular file that exists.
func looksLikePath(s string) bool {
	if IsKeyPath(s) {
		return true
	}
	if strings.ContainsAny(s, "|\n") {
		return false
	}
	fi, err := os.Stat(s)
	return err == nil && fi.Mode().IsRegular()
}

func readKeyFile(path string) ([]string, error) {
	data, err := safefile.ReadFile(path, 0)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%w %s: cannot read: %v", ErrKeyFile, path, err)
	}
	text := strings.TrimSpace(string(data))
	if strings.HasPrefix(text, "[") {
		var arr []string
		if err := json.Unmarshal([]byte(text), &arr); err != nil {
			return nil, fmt.Errorf("%w %s: not a JSON array of strings", ErrKeyFile, path)
		}
		return textfmt.NonBlank(arr), nil
	}
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		lines = append(lines, l)
	}
	return textfmt.NonBlank(lines), nil
}
