package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"iter"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/internal/redact"
	"github.com/webgate-dev/webgate/store"
)

// DecisionLog is the name of the decision log in the store.
const DecisionLog = "decisions"

// What the decision log keeps of queries and URLs (LogConfig.Queries).
const (
	KeepFull   = "full"
	KeepHashed = "hashed"
	KeepNone   = "none"
)

// Defaults of [LogConfig].
const (
	DefaultLogRecords = 5000
	DefaultLogAge     = 30 * 24 * time.Hour
)

// LogConfig configures the decision log.
type LogConfig struct {
	// Queries says what is kept of queries and URLs: "full" (after the
	// redaction of secret-like values), "hashed" (a hash, enough to see
	// repeats) or "none". Default "full".
	Queries string `koanf:"queries" enum:"full,hashed,none"`
	// MaxRecords and MaxAge bound the log; the oldest records go first.
	MaxRecords int           `koanf:"max_records"`
	MaxAge     time.Duration `koanf:"max_age"`
	// Off turns the decision log off.
	Off bool `koanf:"off"`
}

func (l LogConfig) withDefaults() LogConfig {
	if l.Queries == "" {
		l.Queries = KeepFull
	}
	l.MaxRecords = defaults.Positive(l.MaxRecords, DefaultLogRecords)
	l.MaxAge = defaults.Positive(l.MaxAge, DefaultLogAge)
	return l
}

// Decision is one hook decision, as the decision log keeps it.
type Decision struct {
	// ID is the record's ID in the log (set when read back).
	ID int64 `json:"-"`
	// Time is when the decision was made.
	Time time.Time `json:"time"`
	// Runtime, Event and Tool say where it was made: "claude-code",
	// "PreToolUse", "WebSearch".
	Runtime string `json:"runtime,omitempty"`
	Event   string `json:"event,omitempty"`
	Tool    string `json:"tool,omitempty"`
	// Session is the agent's session id.
	Session string `json:"session,omitempty"`
	// Decision is what the hook did: "answered", "denied", "passed", …
	Decision string `json:"decision"`
	// Query is the search query or the URL, as [LogConfig.Queries] says.
	Query string `json:"query,omitempty"`
	// Providers are the providers asked and how each ended.
	Providers []Outcome `json:"providers,omitempty"`
	// Cached is true when the answer came from the cache.
	Cached bool `json:"cached,omitempty"`
	// Latency is how long the hook took.
	Latency time.Duration `json:"latency_ns"`
	// Note says why, in a few words.
	Note string `json:"note,omitempty"`
}

// Outcome is how one provider ended within a decision: "ok" or a failure
// kind.
type Outcome struct {
	Provider string `json:"provider"`
	Outcome  string `json:"outcome"`
}

// Record appends d to the decision log: its query, URL and note pass the
// redaction filter first, and the query is kept as [LogConfig.Queries]
// says. It returns at once when the log is off or the store is not usable;
// after [Memory.DeferWrites] the write waits for [Memory.Flush].
func (m *Memory) Record(ctx context.Context, d Decision) {
	if m == nil || m.opts.Log.Off || m.opts.Store == nil {
		return
	}
	if d.Time.IsZero() {
		d.Time = m.now()
	}
	switch m.opts.Log.Queries {
	case KeepNone:
		d.Query = ""
	case KeepHashed:
		if d.Query != "" {
			sum := sha256.Sum256(append(append([]byte{}, m.opts.Salt...), strings.TrimSpace(d.Query)...))
			d.Query = "sha256:" + hex.EncodeToString(sum[:8])
		}
	default:
		d.Query = redact.String(d.Query)
	}
	d.Note = redact.String(d.Note)
	b, err := json.Marshal(d)
	if err != nil {
		return
	}
	keep := store.Retention{MaxRecords: m.opts.Log.MaxRecords, MaxAge: m.opts.Log.MaxAge}
	m.later(ctx, func(ctx context.Context, s *store.Store) error {
		_, err := s.Append(ctx, DecisionLog, b, keep)
		return err
	})
}

// Decisions returns the newest n decisions (all kept when n ≤ 0) made at
// or after since, oldest first. It reads the store directly: errors are
// returned, not hidden.
func (m *Memory) Decisions(ctx context.Context, n int, since time.Time) ([]Decision, error) {
	if m == nil || m.opts.Store == nil {
		return nil, nil
	}
	recs, err := m.opts.Store.List(ctx, DecisionLog, store.ListQuery{Limit: n, Since: since})
	if err != nil {
		return nil, err
	}
	out := make([]Decision, 0, len(recs))
	for _, r := range recs {
		if d, ok := decode(r); ok {
			out = append(out, d)
		}
	}
	return out, nil
}

// FollowDecisions yields the decisions recorded after the one with ID
// after, as they arrive, until ctx ends.
func (m *Memory) FollowDecisions(ctx context.Context, after int64) iter.Seq2[Decision, error] {
	return func(yield func(Decision, error) bool) {
		if m == nil || m.opts.Store == nil {
			return
		}
		for r, err := range m.opts.Store.Follow(ctx, DecisionLog, after, 0) {
			if err != nil {
				if !yield(Decision{}, err) {
					return
				}
				continue
			}
			if d, ok := decode(r); ok && !yield(d, nil) {
				return
			}
		}
	}
}

func decode(r store.Record) (Decision, bool) {
	var d Decision
	if json.Unmarshal(r.Data, &d) != nil {
		return d, false
	}
	d.ID = r.ID
	return d, true
}
