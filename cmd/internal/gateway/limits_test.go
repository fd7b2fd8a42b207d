package gateway

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A budget of N requests admits exactly N of 50 parallel callers, on
// SQLite and on Redis, and the counters end at N.
func TestLimiter_BudgetExactUnderParallelCallers(t *testing.T) {
	const n, callers = 17, 50
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t)
			// Two limiters over one store: two replicas.
			l1 := &Limiter{Store: st, Token: Limits{RequestsPerDay: n}}
			l2 := &Limiter{Store: st, Token: Limits{RequestsPerDay: n}}
			tok := &Token{ID: "t1"}
			var ok, refused atomic.Int64
			var wg sync.WaitGroup
			for i := range callers {
				l := l1
				if i%2 == 1 {
					l = l2
				}
				wg.Go(func() {
					r, err := l.Reserve(ctx, tok, 1)
					var le *LimitError
					switch {
					case err == nil:
						ok.Add(1)
						r.Settle(ctx, 1)
					case errors.As(err, &le):
						if le.RetryAfterSeconds() < 1 {
							t.Errorf("RetryAfter %v", le.RetryAfter)
						}
						refused.Add(1)
					default:
						t.Error(err)
					}
				})
			}
			wg.Wait()
			if ok.Load() != n || refused.Load() != callers-n {
				t.Fatalf("%d admitted, %d refused; want %d and %d", ok.Load(), refused.Load(), n, callers-n)
			}
			usage, err := l1.Usage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			day := time.Now().UTC().Format("2006-01-02")
			if got := usage[UsagePrefix+"token/t1/requests/day/"+day]; got != n {
				t.Fatalf("requests counter %d, want %d (refusals rolled back)", got, n)
			}
			if got := usage[UsagePrefix+"token/t1/credits/day/"+day]; got != n {
				t.Fatalf("credits counter %d, want %d", got, n)
			}
		})
	}
}

func TestLimiter_CreditsReservedThenSettled(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, "memory:")
	l := &Limiter{Store: st, Token: Limits{CreditsPerMonth: 5}, Team: Limits{RequestsPerMonth: 100}}
	tok := &Token{ID: "t1", Team: "core"}
	r, err := l.Reserve(ctx, tok, 4)
	if err != nil {
		t.Fatal(err)
	}
	// 4 held of 5: a second call asking for 2 is refused while the first
	// runs…
	if _, err := l.Reserve(ctx, tok, 2); err == nil {
		t.Fatal("a reservation past the credits was admitted")
	}
	// …and admitted once the first settled for 1.
	r.Settle(ctx, 1)
	r2, err := l.Reserve(ctx, tok, 2)
	if err != nil {
		t.Fatalf("after settling: %v", err)
	}
	r2.Settle(ctx, 0)
	month := time.Now().UTC().Format("2006-01")
	usage, _ := l.Usage(ctx)
	if usage[UsagePrefix+"token/t1/credits/month/"+month] != 1 || usage[UsagePrefix+"team/core/requests/month/"+month] != 2 {
		t.Fatalf("usage %v", usage)
	}
	// Release gives the request back too.
	r3, _ := l.Reserve(ctx, tok, 1)
	r3.Release(ctx)
	r3.Release(ctx)
	usage, _ = l.Usage(ctx)
	if usage[UsagePrefix+"team/core/requests/month/"+month] != 2 {
		t.Fatalf("after release: %v", usage)
	}
}

func TestLimiter_RateRetryAfter(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 45, 0, time.UTC)
	l := &Limiter{Store: openStore(t, "memory:"), Token: Limits{RatePerMinute: 2}, Now: func() time.Time { return now }}
	tok := &Token{ID: "t1"}
	for range 2 {
		if _, err := l.Reserve(ctx, tok, 0); err != nil {
			t.Fatal(err)
		}
	}
	_, err := l.Reserve(ctx, tok, 0)
	var le *LimitError
	if !errors.As(err, &le) || le.RetryAfterSeconds() != 15 {
		t.Fatalf("third call in the minute: %v, want a refusal for 15s", err)
	}
	now = now.Add(15 * time.Second)
	if _, err := l.Reserve(ctx, tok, 0); err != nil {
		t.Fatalf("next minute: %v", err)
	}
}

func TestLimiter_StoreDown(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, "memory:")
	st.Close()
	tok := &Token{ID: "t1"}
	if _, err := (&Limiter{Store: st}).Reserve(ctx, tok, 1); err == nil {
		t.Fatal("closed: admitted with the store down")
	}
	r, err := (&Limiter{Store: st, FailOpen: true}).Reserve(ctx, tok, 1)
	if err != nil {
		t.Fatal(err)
	}
	r.Settle(ctx, 1)
}
