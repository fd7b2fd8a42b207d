package policy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

// ExtractConfig configures [Extraction]. The zero value, and a nil
// *ExtractConfig, mean the documented defaults. [NewExtraction] copies it
// and never modifies the caller's value.
type ExtractConfig struct {
	// Primary names the extractor tried first; the others follow in their
	// order. Empty means a random first extractor for each call, to spread
	// credit use over the configured providers.
	Primary string `koanf:"primary"`
	// Budget is the overall time limit of one extraction; 0 means
	// [DefaultExtractBudget]. A deadline on the caller's context shortens it.
	Budget time.Duration `koanf:"budget"`
	// PerAttempt is each attempt's own deadline, never beyond the budget; 0
	// means an even share of the remaining budget among the extractors not
	// yet tried.
	PerAttempt time.Duration `koanf:"per_attempt"`
	// Hedge starts the next extractor when the running ones have not
	// answered within this delay, without canceling them; the first success
	// wins. 0, the default, disables hedging.
	Hedge time.Duration `koanf:"hedge"`
	// Rand picks the first extractor when Primary is empty. Nil means the
	// math/rand/v2 top-level generator. Extraction serialises its use, so a
	// *rand.Rand can be shared with it.
	Rand *rand.Rand `koanf:"-"`
	// Observer, when set, is told how every extraction went; see
	// [Observer].
	Observer Observer `koanf:"-"`
}

// Extraction is a [provider.Extractor] that tries its extractors in order
// and returns the first page with content.
//
// Order: with [ExtractConfig.Primary] set, the primary first, then the
// others in their order; without it, an extractor picked at random for each
// call, then the others in their order. Callers pass only the extractors
// that are configured (have keys).
//
// Guarantees:
//   - A page whose content is empty after trimming space is a failure of
//     kind unsupported, and the next extractor is tried.
//   - Each attempt has its own deadline inside the overall budget; a
//     provider that does not answer in time is reported as timed out, even if
//     it ignores its context.
//   - After a failure of any kind the next extractor is tried; when the
//     caller's context is canceled Extraction stops with an error of kind
//     canceled.
//   - When every extractor fails the error is an [*AllFailedError] carrying
//     every attempt's kind. The attempts, successful or not, reach
//     [ExtractConfig.Observer].
//
// An Extraction is safe for concurrent use.
type Extraction struct {
	extractors []provider.Extractor
	names      []string
	name       string
	primary    int // -1: random
	cfg        ExtractConfig
	mu         sync.Mutex // guards cfg.Rand
}

var (
	_ provider.Extractor = (*Extraction)(nil)
	_ provider.Namer     = (*Extraction)(nil)
)

// NewExtraction returns an [Extraction] over extractors. cfg may be nil for
// the defaults; it is copied. It fails when extractors is empty or holds
// nil, or when cfg.Primary names none of them.
func NewExtraction(extractors []provider.Extractor, cfg *ExtractConfig) (*Extraction, error) {
	names, err := providerNames("extract", extractors)
	if err != nil {
		return nil, err
	}
	var c ExtractConfig
	if cfg != nil {
		c = *cfg
	}
	if c.Budget <= 0 {
		c.Budget = DefaultExtractBudget
	}
	c.PerAttempt = max(c.PerAttempt, 0)
	c.Hedge = max(c.Hedge, 0)
	e := &Extraction{
		extractors: append([]provider.Extractor(nil), extractors...),
		names:      names,
		name:       label("extraction", names),
		primary:    -1,
		cfg:        c,
	}
	if p := strings.TrimSpace(c.Primary); p != "" {
		for i, n := range names {
			if strings.EqualFold(n, p) {
				e.primary = i
				break
			}
		}
		if e.primary < 0 {
			return nil, fmt.Errorf("policy: primary extractor %q is not among the configured extractors (%s)", p, strings.Join(names, ", "))
		}
	}
	return e, nil
}

// Name returns "extraction(" followed by the extractors' names and ")".
func (e *Extraction) Name() string { return e.name }

// order returns the extractor indices in the order this call tries them.
func (e *Extraction) order() []int {
	n := len(e.extractors)
	first := e.primary
	if first < 0 {
		if e.cfg.Rand != nil {
			e.mu.Lock()
			first = e.cfg.Rand.IntN(n)
			e.mu.Unlock()
		} else {
			first = rand.IntN(n)
		}
	}
	order := make([]int, 0, n)
	order = append(order, first)
	for i := range n {
		if i != first {
			order = append(order, i)
		}
	}
	return order
}

// Extract tries the extractors in order; see [Extraction] for the order and
// the guarantees.
func (e *Extraction) Extract(ctx context.Context, req provider.ExtractRequest) (page *provider.Page, err error) {
	start := time.Now()
	var attempts []Attempt
	defer e.cfg.Observer.observe(e.name, "extract", start, &attempts, &err)
	if strings.TrimSpace(req.URL) == "" {
		return nil, &provider.Error{Provider: e.name, Op: "extract", Kind: provider.KindBadRequest, Message: "empty URL"}
	}
	seq := sequence[*provider.Page]{
		policy: e.name, op: "extract", names: e.names,
		budget: e.cfg.Budget, per: e.cfg.PerAttempt, hedge: e.cfg.Hedge,
		try: func(ctx context.Context, i int) (*provider.Page, error) {
			return extractOnce(ctx, e.extractors[i], e.names[i], req)
		},
		check: func(i int, p *provider.Page) (*provider.Page, int, error) {
			if p == nil || strings.TrimSpace(p.Content) == "" {
				return nil, 0, &provider.Error{Provider: e.names[i], Op: "extract", Kind: provider.KindUnsupported, Message: "empty content"}
			}
			cp := *p
			if cp.Provider == "" {
				cp.Provider = e.names[i]
			}
			if cp.URL == "" {
				cp.URL = req.URL
			}
			return &cp, 1, nil
		},
	}
	page, _, attempts, err = seq.run(ctx, e.order())
	return page, err
}

// extractOnce calls x, turning a panic into an error.
func extractOnce(ctx context.Context, x provider.Extractor, name string, req provider.ExtractRequest) (p *provider.Page, err error) {
	defer func() {
		if v := recover(); v != nil {
			p, err = nil, panicError(name, "extract")
		}
	}()
	return x.Extract(ctx, req)
}
