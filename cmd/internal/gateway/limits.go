package gateway

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/store"
)

// Limits bound what one token, or one team's tokens together, may use. A
// zero field means no limit. Credits are provider calls: a search or a
// read answered by one provider costs one credit, from the cache none.
type Limits struct {
	// RatePerMinute caps requests per minute (a fixed window of one
	// minute); tokens only.
	RatePerMinute int64 `koanf:"rate_per_minute"`
	// RequestsPerDay and RequestsPerMonth cap requests per calendar day
	// and month (UTC).
	RequestsPerDay   int64 `koanf:"requests_per_day"`
	RequestsPerMonth int64 `koanf:"requests_per_month"`
	// CreditsPerDay and CreditsPerMonth cap provider calls per calendar
	// day and month (UTC).
	CreditsPerDay   int64 `koanf:"credits_per_day"`
	CreditsPerMonth int64 `koanf:"credits_per_month"`
}

// LimitError is a refusal by a limit. The HTTP server answers it with 429
// and a Retry-After header.
type LimitError struct {
	// Limit names the limit: "token rate per minute", "team requests per
	// day", …
	Limit string
	// RetryAfter is how long until the limit's window resets.
	RetryAfter time.Duration
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("limit reached: %s (resets in %s)", e.Limit, e.RetryAfter.Round(time.Second))
}

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up, at least 1.
func (e *LimitError) RetryAfterSeconds() int64 {
	return max(1, int64(math.Ceil(e.RetryAfter.Seconds())))
}

// Counter TTLs: a day's and a month's counters outlive their window so
// that usage can be read after it, and then go on their own.
const (
	rateTTL   = 2 * time.Minute
	budgetTTL = 62 * 24 * time.Hour
)

// Limiter enforces [Limits] per token and per team with the store's
// atomic counters, so that replicas sharing one store share the limits
// and parallel callers cannot overshoot them: a call reserves its request
// and its estimated credits before it asks any provider (one atomic
// increment of every counter concerned), and a reservation that takes a
// counter past its limit is taken back and refused. After the call,
// [Reservation.Settle] releases the credits it did not use.
//
// A budget of N requests so admits exactly N of any number of parallel
// callers. A Limiter is safe for concurrent use.
type Limiter struct {
	// Store keeps the counters. Required.
	Store *store.Store
	// Token are the limits of each token; Team those of each team (the
	// tokens whose Team is the same), and apply only to tokens with a
	// team.
	Token, Team Limits
	// FailOpen admits calls when the store fails; false refuses them.
	FailOpen bool
	// Now returns the current time; nil means time.Now.
	Now func() time.Time

	// names keeps the counter names of the tokens seen in the current
	// day, so that a call does not build them again.
	names counterNames
}

// counterNames are the names of the budget counters of each token (and
// its team) on one day, made once per token and day.
type counterNames struct {
	mu      sync.Mutex
	date    [3]int                   // year, month, day
	byToken map[[2]string]*[8]string // {token ID, team} → names
}

// maxNamedTokens bounds counterNames; past it the names start again.
const maxNamedTokens = 10_000

// of returns the eight counter names (token, then team: requests per day
// and month, credits per day and month) of the token id of team on the
// day of now (UTC).
func (c *counterNames) of(id, team string, now time.Time) *[8]string {
	y, m, d := now.Date()
	c.mu.Lock()
	defer c.mu.Unlock()
	if date := [3]int{y, int(m), d}; c.date != date || len(c.byToken) >= maxNamedTokens {
		c.date, c.byToken = date, map[[2]string]*[8]string{}
	}
	k := [2]string{id, team}
	if n := c.byToken[k]; n != nil {
		return n
	}
	day, month := now.Format("2006-01-02"), now.Format("2006-01")
	n := new([8]string)
	for i, prefix := range []string{UsagePrefix + "token/" + id, UsagePrefix + "team/" + team} {
		n[4*i] = prefix + "/requests/day/" + day
		n[4*i+1] = prefix + "/requests/month/" + month
		n[4*i+2] = prefix + "/credits/day/" + day
		n[4*i+3] = prefix + "/credits/month/" + month
	}
	c.byToken[k] = n
	return n
}

func (l *Limiter) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// Reservation is what a call reserved; settle it when the call is done.
type Reservation struct {
	l       *Limiter
	store   *store.Store
	credits []string // the credit counters
	budget  map[string]int64
	rate    string
	held    int64
	open    bool
	// creditLimited: a credit counter of the call has a limit, so its
	// settlement decides what the caller's next call may reserve.
	creditLimited bool
}

// CreditLimited reports whether one of the counters the reservation holds
// credits in has a limit: settle it before answering, else the caller's
// next call may be refused for credits this one did not use.
func (r *Reservation) CreditLimited() bool { return r != nil && r.creditLimited }

// FailedOpen reports whether the reservation holds nothing because the
// store failed and the Limiter fails open: the call runs unchecked.
func (r *Reservation) FailedOpen() bool { return r != nil && r.open }

// counter is one budget counter of a call: its name, what it counts, its
// limit and when its window resets.
type counter struct {
	name, what string
	limit      int64
	credits    bool
	reset      time.Time
}

// limitNames name the limits of a token, and of a team, in refusals.
var limitNames = [2][4]string{
	{"token requests per day", "token requests per month", "token credits per day", "token credits per month"},
	{"team requests per day", "team requests per month", "team credits per day", "team credits per month"},
}

func (l *Limiter) counters(t *Token, now time.Time) []counter {
	now = now.UTC()
	y, m, d := now.Date()
	names := l.names.of(t.ID, t.Team, now)
	nextDay := time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
	nextMonth := time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]counter, 0, 8)
	add := func(i int, lim Limits) {
		what := &limitNames[i]
		out = append(out,
			counter{names[4*i], what[0], lim.RequestsPerDay, false, nextDay},
			counter{names[4*i+1], what[1], lim.RequestsPerMonth, false, nextMonth},
			counter{names[4*i+2], what[2], lim.CreditsPerDay, true, nextDay},
			counter{names[4*i+3], what[3], lim.CreditsPerMonth, true, nextMonth},
		)
	}
	add(0, l.Token)
	if t.Team != "" {
		add(1, l.Team)
	}
	return out
}

// UsagePrefix starts the names of the usage counters:
// UsagePrefix+"token/<id>/requests/day/2026-03-01", …/credits/month/2026-03,
// and the same under "team/<team>/".
const UsagePrefix = "cmd/internal/gateway/usage/"

// Reserve reserves one request and credits provider calls for the token
// t, or refuses with a [*LimitError] when a limit would be passed (and
// then holds nothing). Pass the most credits the call may use: the
// settlement releases what it did not.
//
// When the store fails, Reserve returns the store's error, or, with
// FailOpen, an empty reservation and nil.
func (l *Limiter) Reserve(ctx context.Context, t *Token, credits int64) (*Reservation, error) {
	now := l.now()
	r := &Reservation{l: l, store: l.Store, held: credits}
	if lim := l.Token.RatePerMinute; lim > 0 {
		window := now.Truncate(time.Minute)
		name := fmt.Sprintf("cmd/internal/gateway/rate/%s/%d", t.ID, window.Unix())
		n, err := l.Store.Incr(ctx, name, 1, rateTTL)
		if err != nil {
			return l.failed(err)
		}
		if n > lim {
			l.Store.Incr(context.WithoutCancel(ctx), name, -1, rateTTL)
			return nil, &LimitError{Limit: "token rate per minute", RetryAfter: window.Add(time.Minute).Sub(now)}
		}
		r.rate = name
	}
	cs := l.counters(t, now)
	r.budget = make(map[string]int64, len(cs))
	r.credits = make([]string, 0, 2)
	for _, c := range cs {
		if c.credits {
			r.budget[c.name] = credits
			r.credits = append(r.credits, c.name)
			r.creditLimited = r.creditLimited || c.limit > 0
		} else {
			r.budget[c.name] = 1
		}
	}
	got, err := l.Store.IncrMany(ctx, r.budget, budgetTTL)
	if err != nil {
		r.undoRate(ctx)
		return l.failed(err)
	}
	var refused *LimitError
	for _, c := range cs {
		if c.limit > 0 && got[c.name] > c.limit && r.budget[c.name] > 0 {
			if wait := c.reset.Sub(now); refused == nil || wait > refused.RetryAfter {
				refused = &LimitError{Limit: c.what, RetryAfter: wait}
			}
		}
	}
	if refused != nil {
		r.Release(ctx)
		return nil, refused
	}
	return r, nil
}

func (l *Limiter) failed(err error) (*Reservation, error) {
	if l.FailOpen {
		return &Reservation{open: true}, nil
	}
	return nil, err
}

func (r *Reservation) undoRate(ctx context.Context) {
	if r.rate != "" {
		r.store.Incr(context.WithoutCancel(ctx), r.rate, -1, rateTTL)
		r.rate = ""
	}
}

// Release takes the whole reservation back, request included: for a call
// that was refused before it used anything. Releasing twice, or after
// Settle, does nothing.
func (r *Reservation) Release(ctx context.Context) error {
	if r == nil || r.l == nil {
		return nil
	}
	r.undoRate(ctx)
	back := make(map[string]int64, len(r.budget))
	for k, v := range r.budget {
		if v != 0 {
			back[k] = -v
		}
	}
	r.l, r.budget = nil, nil
	if len(back) == 0 {
		return nil
	}
	_, err := r.apply(ctx, back)
	return err
}

// apply applies deltas with a context that outlives the caller's
// cancellation, so that a reservation is given back even when the client
// has gone.
func (r *Reservation) apply(ctx context.Context, deltas map[string]int64) (map[string]int64, error) {
	return r.store.IncrMany(context.WithoutCancel(ctx), deltas, budgetTTL)
}

// Settle records that the call used credits provider calls: the credits
// reserved and not used are released (used beyond the reservation are
// added). The request stays counted. Settling twice does nothing.
func (r *Reservation) Settle(ctx context.Context, used int64) error {
	deltas := r.settleDeltas(used)
	if len(deltas) == 0 {
		return nil
	}
	_, err := r.apply(ctx, deltas)
	return err
}

// settleDeltas marks r settled and returns the increments that settle it
// with used credits; none when there is nothing to change.
func (r *Reservation) settleDeltas(used int64) map[string]int64 {
	if r == nil || r.l == nil {
		return nil
	}
	diff := used - r.held
	names := r.credits
	r.l, r.budget = nil, nil
	if diff == 0 || len(names) == 0 {
		return nil
	}
	deltas := make(map[string]int64, len(names))
	for _, n := range names {
		deltas[n] = diff
	}
	return deltas
}

// Usage returns every live usage counter (see [UsagePrefix]) by name.
func (l *Limiter) Usage(ctx context.Context) (map[string]int64, error) {
	return l.Store.Counters(ctx, UsagePrefix)
}
