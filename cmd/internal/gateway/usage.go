package gateway

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/store"
)

// cacheHitCounter names the counter of a token's calls answered without
// a provider call on now's day (UTC).
func cacheHitCounter(tokenID string, now time.Time) string {
	return UsagePrefix + "token/" + tokenID + "/cache_hits/day/" + now.UTC().Format("2006-01-02")
}

// TokenUsage is one token's use of the gateway on one day (UTC), read
// from the usage counters every replica shares.
type TokenUsage struct {
	// Day is the day, 2026-03-01.
	Day string `json:"day"`
	// Token is the token's ID; Owner, Label and Team are the token's,
	// empty when it is no longer listed.
	Token string `json:"token"`
	Owner string `json:"owner,omitempty"`
	Label string `json:"label,omitempty"`
	Team  string `json:"team,omitempty"`
	// Requests counts the calls admitted; Credits the provider calls
	// they made; CacheHits the calls answered without one.
	Requests  int64 `json:"requests"`
	Credits   int64 `json:"credits"`
	CacheHits int64 `json:"cache_hits"`
}

// ReadUsage returns each token's use per day from since's day (UTC) on,
// oldest day first, then by owner and token, with the owner, label and
// team of the tokens listed in st. An empty result means the store holds
// no gateway usage in that time.
func ReadUsage(ctx context.Context, st *store.Store, since time.Time) ([]TokenUsage, error) {
	counters, err := st.Counters(ctx, UsagePrefix+"token/")
	if err != nil {
		return nil, err
	}
	first := since.UTC().Format("2006-01-02")
	rows := map[[2]string]*TokenUsage{}
	for name, v := range counters {
		// <id>/<what>/day/<day>
		parts := strings.Split(strings.TrimPrefix(name, UsagePrefix+"token/"), "/")
		if len(parts) != 4 || parts[2] != "day" || parts[3] < first {
			continue
		}
		k := [2]string{parts[3], parts[0]}
		r := rows[k]
		if r == nil {
			r = &TokenUsage{Day: parts[3], Token: parts[0]}
			rows[k] = r
		}
		switch parts[1] {
		case "requests":
			r.Requests += v
		case "credits":
			r.Credits += v
		case "cache_hits":
			r.CacheHits += v
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	tokens, err := (&Tokens{Store: st, CacheFor: -1}).List(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*Token, len(tokens))
	for _, t := range tokens {
		byID[t.ID] = t
	}
	out := make([]TokenUsage, 0, len(rows))
	for _, r := range rows {
		if t := byID[r.Token]; t != nil {
			r.Owner, r.Label, r.Team = t.Owner, t.Label, t.Team
		} else if p := principalOf(ctx, st, r.Token); p != (principal{}) {
			r.Owner, r.Label, r.Team = p.Owner, "oidc", p.Team
		}
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b TokenUsage) int {
		return cmp.Or(cmp.Compare(a.Day, b.Day), cmp.Compare(a.Owner, b.Owner), cmp.Compare(a.Token, b.Token))
	})
	return out, nil
}
