package policy_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

func newExtraction(t *testing.T, cfg *policy.ExtractConfig, xs ...*fakeExtractor) *policy.Extraction {
	t.Helper()
	var es []provider.Extractor
	for _, x := range xs {
		es = append(es, x)
	}
	e, err := policy.NewExtraction(es, cfg)
	if err != nil {
		t.Fatalf("NewExtraction: %v", err)
	}
	return e
}

func okExtractor(name string) *fakeExtractor {
	return &fakeExtractor{name: name, content: "# " + name + "\n\nbody"}
}

func failingExtractor(name string, k provider.Kind) *fakeExtractor {
	return &fakeExtractor{name: name, err: &provider.Error{Provider: name, Op: "extract", Kind: k, Message: "scripted"}}
}

var req = provider.ExtractRequest{URL: "https://example.com/page"}

func TestExtraction_PicksTheFirstExtractorAtRandomFromTheInjectedSource(t *testing.T) {
	names := []string{"x", "y", "z"}
	e := newExtraction(t, &policy.ExtractConfig{Rand: rand.New(rand.NewPCG(7, 9))}, okExtractor("x"), okExtractor("y"), okExtractor("z"))
	twin := rand.New(rand.NewPCG(7, 9))
	seen := map[string]int{}
	for i := range 30 {
		page, err := e.Extract(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if want := names[twin.IntN(3)]; page.Provider != want {
			t.Fatalf("call %d answered by %s, want %s", i, page.Provider, want)
		}
		seen[page.Provider]++
	}
	if len(seen) != 3 {
		t.Errorf("first picks %v, want every extractor picked", seen)
	}
}

func TestExtraction_TriesTheRestInOrderAfterTheRandomFirst(t *testing.T) {
	// Find a seed whose first pick is the last extractor.
	var seed uint64
	for seed = 1; rand.New(rand.NewPCG(seed, 0)).IntN(3) != 2; seed++ {
	}
	e := newExtraction(t, &policy.ExtractConfig{Rand: rand.New(rand.NewPCG(seed, 0))},
		failingExtractor("x", provider.KindQuota), failingExtractor("y", provider.KindAuth), failingExtractor("z", provider.KindTransient))
	_, err := e.Extract(context.Background(), req)
	var all *policy.AllFailedError
	if !errors.As(err, &all) {
		t.Fatalf("err %v, want *AllFailedError", err)
	}
	if got := kindsOf(all.Failures); !slices.Equal(got, []string{"z:transient", "x:quota", "y:auth"}) {
		t.Errorf("attempts %q, want z then x, y", got)
	}
	if provider.KindOf(err) != provider.KindTransient || all.Op != "extract" {
		t.Errorf("kind %s op %q", provider.KindOf(err), all.Op)
	}
}

func TestExtraction_TriesThePrimaryFirst(t *testing.T) {
	for _, primary := range []string{"z", "Z", " z "} {
		x, y, z := okExtractor("x"), okExtractor("y"), okExtractor("z")
		e := newExtraction(t, &policy.ExtractConfig{Primary: primary, Rand: rand.New(rand.NewPCG(1, 1))}, x, y, z)
		for range 5 {
			page, err := e.Extract(context.Background(), req)
			if err != nil || page.Provider != "z" {
				t.Fatalf("primary %q: got %v, %v; want z's page", primary, page, err)
			}
		}
		if x.calls.Load()+y.calls.Load() != 0 {
			t.Errorf("primary %q: others were called", primary)
		}
	}
	e := newExtraction(t, &policy.ExtractConfig{Primary: "y"}, failingExtractor("x", provider.KindAuth), failingExtractor("y", provider.KindQuota), failingExtractor("z", provider.KindUnknown))
	_, err := e.Extract(context.Background(), req)
	var all *policy.AllFailedError
	if !errors.As(err, &all) || !slices.Equal(kindsOf(all.Failures), []string{"y:quota", "x:auth", "z:unknown"}) {
		t.Errorf("err %v, want y then x, z", err)
	}
}

func TestExtraction_RejectsAPrimaryThatIsNotConfigured(t *testing.T) {
	_, err := policy.NewExtraction([]provider.Extractor{okExtractor("x")}, &policy.ExtractConfig{Primary: "exa"})
	if err == nil {
		t.Error("want an error")
	}
}

func TestExtraction_TreatsEmptyContentAsFailure(t *testing.T) {
	blank := &fakeExtractor{name: "blank", content: " \n\t "}
	rec := &recorder{}
	e := newExtraction(t, &policy.ExtractConfig{Primary: "blank", Observer: rec.observe}, blank, okExtractor("good"))
	page, err := e.Extract(context.Background(), req)
	if err != nil || page.Provider != "good" {
		t.Fatalf("got %v, %v; want good's page", page, err)
	}
	tr := rec.only(t)
	if len(tr.Attempts) != 2 || tr.Attempts[0].Kind != provider.KindUnsupported || tr.Attempts[1].Results != 1 {
		t.Errorf("trace %s", tr)
	}

	_, err = newExtraction(t, nil, &fakeExtractor{name: "blank"}).Extract(context.Background(), req)
	if provider.KindOf(err) != provider.KindUnsupported {
		t.Errorf("only blank pages: kind %s, want unsupported", provider.KindOf(err))
	}
}

func TestExtraction_GivesEachAttemptItsOwnDeadline(t *testing.T) {
	hung := &fakeExtractor{name: "hung", ignoreCtx: make(chan struct{})}
	t.Cleanup(func() { close(hung.ignoreCtx) })
	rec := &recorder{}
	e := newExtraction(t, &policy.ExtractConfig{Primary: "hung", PerAttempt: 100 * time.Millisecond, Observer: rec.observe}, hung, okExtractor("good"))
	page, err := e.Extract(context.Background(), req)
	if err != nil || page.Provider != "good" {
		t.Fatalf("got %v, %v; want good's page", page, err)
	}
	a := rec.only(t).Attempts[0]
	if a.Provider != "hung" || !a.TimedOut || a.Kind != provider.KindTransient || a.Elapsed < 100*time.Millisecond {
		t.Errorf("first attempt %+v, want hung timed out after 100ms", a)
	}
}

func TestExtraction_StopsWhenTheCallerCancels(t *testing.T) {
	blocked, next := &fakeExtractor{name: "blocked", block: true}, okExtractor("next")
	e := newExtraction(t, &policy.ExtractConfig{Primary: "blocked"}, blocked, next)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := e.Extract(ctx, req)
	if provider.KindOf(err) != provider.KindCanceled || next.calls.Load() != 0 {
		t.Errorf("err %v, next calls %d; want canceled", err, next.calls.Load())
	}
}

func TestExtraction_RejectsAnEmptyURL(t *testing.T) {
	x := okExtractor("x")
	_, err := newExtraction(t, nil, x).Extract(context.Background(), provider.ExtractRequest{})
	if provider.KindOf(err) != provider.KindBadRequest || x.calls.Load() != 0 {
		t.Errorf("err %v; want bad-request without calling the extractor", err)
	}
}

func TestExtraction_IsSafeForConcurrentUseWithASharedRand(t *testing.T) {
	e := newExtraction(t, &policy.ExtractConfig{Rand: rand.New(rand.NewPCG(3, 4))}, okExtractor("x"), okExtractor("y"))
	done := make(chan error)
	for range 8 {
		go func() {
			_, err := e.Extract(context.Background(), req)
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
