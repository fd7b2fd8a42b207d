package memory

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

// Usage is one provider's use on one day (UTC).
type Usage struct {
	// Day is the day, "2026-03-01".
	Day string `json:"day"`
	// Provider is the provider's name.
	Provider string `json:"provider"`
	// Requests, Results and Failures count the calls, the results they
	// returned and the calls that failed.
	Requests int64 `json:"requests"`
	Results  int64 `json:"results"`
	Failures int64 `json:"failures"`
	// FailuresByKind counts the failures by kind.
	FailuresByKind map[provider.Kind]int64 `json:"failures_by_kind,omitempty"`
	// Latency is the calls' total time; Latency / Requests is the mean.
	Latency time.Duration `json:"latency_ns"`
	// Credits, CostUSD and Tokens add up what the provider reported the
	// calls cost ([provider.Usage]): credits to the thousandth, dollars to
	// the millionth; zero when it reported nothing.
	Credits float64 `json:"credits,omitempty"`
	CostUSD float64 `json:"cost_usd,omitempty"`
	Tokens  int64   `json:"tokens,omitempty"`
}

// MeanLatency returns the mean time of a call.
func (u Usage) MeanLatency() time.Duration {
	if u.Requests == 0 {
		return 0
	}
	return u.Latency / time.Duration(u.Requests)
}

// Usage returns every provider's use per day since the given day (all kept
// when zero), sorted by day and provider. It reads the store directly:
// errors are returned, not hidden.
func (m *Memory) Usage(ctx context.Context, since time.Time) ([]Usage, error) {
	if m == nil || m.opts.Store == nil {
		return nil, nil
	}
	cs, err := m.opts.Store.Counters(ctx, "usage/")
	if err != nil {
		return nil, err
	}
	from := ""
	if !since.IsZero() {
		from = day(since)
	}
	byKey := map[[2]string]*Usage{}
	for name, v := range cs {
		parts := strings.SplitN(strings.TrimPrefix(name, "usage/"), "/", 3)
		if len(parts) < 3 || parts[0] < from {
			continue
		}
		k := [2]string{parts[0], parts[1]}
		u := byKey[k]
		if u == nil {
			u = &Usage{Day: parts[0], Provider: parts[1]}
			byKey[k] = u
		}
		switch field := parts[2]; {
		case field == "requests":
			u.Requests = v
		case field == "results":
			u.Results = v
		case field == "latency_ms":
			u.Latency = time.Duration(v) * time.Millisecond
		case field == "credits_milli":
			u.Credits = float64(v) / creditsScale
		case field == "cost_micro_usd":
			u.CostUSD = float64(v) / costScale
		case field == "tokens":
			u.Tokens = v
		case strings.HasPrefix(field, "failures/"):
			if u.FailuresByKind == nil {
				u.FailuresByKind = map[provider.Kind]int64{}
			}
			u.FailuresByKind[provider.Kind(strings.TrimPrefix(field, "failures/"))] += v
			u.Failures += v
		}
	}
	out := make([]Usage, 0, len(byKey))
	for _, u := range byKey {
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Day != out[j].Day {
			return out[i].Day < out[j].Day
		}
		return out[i].Provider < out[j].Provider
	})
	return out, nil
}

// Budget is a provider's monthly budget and what the month used of it.
type Budget struct {
	Provider string `json:"provider"`
	// Month is "2026-03".
	Month string `json:"month"`
	// Limit is the monthly budget of requests; Used what this month used.
	Limit int64 `json:"limit"`
	Used  int64 `json:"used"`
}

// Percent returns how much of the budget is used, in percent.
func (b Budget) Percent() int {
	if b.Limit <= 0 {
		return 0
	}
	return int(b.Used * 100 / b.Limit)
}

// Budgets returns the monthly budgets that are set and this month's use of
// each, sorted by provider.
func (m *Memory) Budgets(ctx context.Context) ([]Budget, error) {
	if m == nil || m.opts.Store == nil || len(m.opts.Budgets) == 0 {
		return nil, nil
	}
	now := m.now()
	mo := month(now)
	cs, err := m.opts.Store.Counters(ctx, monthPrefix(now))
	if err != nil {
		return nil, err
	}
	var out []Budget
	for _, name := range slices.Sorted(maps.Keys(m.opts.Budgets)) {
		if limit := m.opts.Budgets[name]; limit > 0 {
			out = append(out, Budget{Provider: name, Month: mo, Limit: limit, Used: cs[monthKey(name, now)]})
		}
	}
	return out, nil
}
