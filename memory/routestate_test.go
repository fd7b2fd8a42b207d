package memory_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/routing"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/memstore"
)

func TestRouteState_RemembersReleasesOnceAndKeepsSessionsApart(t *testing.T) {
	m, _ := newMemory(t, memory.Options{})
	rs := m.RouteState(0)
	if rs.Window() != routing.DefaultEscapeWindow {
		t.Errorf("window = %v, want the default %v", rs.Window(), routing.DefaultEscapeWindow)
	}
	if got := rs.Describe(); got != "the memory store" {
		t.Errorf("Describe() = %q", got)
	}
	call := routing.Call{Query: "kubectl rollout status", AllowedDomains: []string{"kubernetes.io", "Docs.K8s.io"}}
	if ok, err := rs.Release("s1", call); ok || err != nil {
		t.Fatalf("release before any denial = %v, %v; want false, nil", ok, err)
	}
	if err := rs.Remember("s1", call); err != nil {
		t.Fatal(err)
	}
	// The same call in another form: surrounding space, domains in
	// another order and case, repeated.
	same := routing.Call{Query: "  kubectl rollout status ", AllowedDomains: []string{"docs.k8s.io", "KUBERNETES.IO", "kubernetes.io"}}
	for range 2 {
		if ok, err := rs.Remembered("s1", same); !ok || err != nil {
			t.Fatalf("Remembered = %v, %v; want true, nil (and no change)", ok, err)
		}
	}
	if ok, _ := rs.Remembered("s2", call); ok {
		t.Error("another session sees the denial")
	}
	if ok, _ := rs.Release("s2", call); ok {
		t.Error("another session released the denial")
	}
	if ok, err := rs.Release("s1", same); !ok || err != nil {
		t.Fatalf("identical retry: released = %v, %v; want true", ok, err)
	}
	if ok, _ := rs.Release("s1", call); ok {
		t.Error("released twice: the denial was not cleared")
	}
	if ok, _ := rs.Remembered("s1", call); ok {
		t.Error("Remembered after the release")
	}
}

func TestRouteState_DifferentDomainSetsOrQueriesAreDifferentCalls(t *testing.T) {
	m, _ := newMemory(t, memory.Options{})
	rs := m.RouteState(time.Minute)
	base := routing.Call{Query: "helm upgrade", AllowedDomains: []string{"helm.sh"}}
	if err := rs.Remember("s", base); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]routing.Call{
		"no allowed domains":     {Query: "helm upgrade"},
		"more allowed domains":   {Query: "helm upgrade", AllowedDomains: []string{"helm.sh", "github.com"}},
		"the domain as blocked":  {Query: "helm upgrade", BlockedDomains: []string{"helm.sh"}},
		"blocked domains added":  {Query: "helm upgrade", AllowedDomains: []string{"helm.sh"}, BlockedDomains: []string{"x.com"}},
		"another query":          {Query: "helm upgrade --install", AllowedDomains: []string{"helm.sh"}},
		"the query in uppercase": {Query: "HELM upgrade", AllowedDomains: []string{"helm.sh"}},
	} {
		if ok, err := rs.Release("s", c); ok || err != nil {
			t.Errorf("%s: released = %v, %v; want false", name, ok, err)
		}
	}
	if ok, _ := rs.Release("s", base); !ok {
		t.Error("the denied call itself was not released after the others")
	}
}

func TestRouteState_ForgetsADenialAfterTheWindow(t *testing.T) {
	m, c := newMemory(t, memory.Options{})
	rs := m.RouteState(5 * time.Minute)
	old := routing.Call{Query: "kubectl logs"}
	if err := rs.Remember("s", old); err != nil {
		t.Fatal(err)
	}
	c.add(4 * time.Minute)
	recent := routing.Call{Query: "kubectl describe"}
	if err := rs.Remember("s", recent); err != nil {
		t.Fatal(err)
	}
	c.add(time.Minute + time.Second) // old: 5m1s, recent: 1m1s
	if ok, _ := rs.Remembered("s", old); ok {
		t.Error("a denial older than the window is remembered")
	}
	if ok, _ := rs.Release("s", old); ok {
		t.Error("a denial older than the window was released")
	}
	if ok, _ := rs.Release("s", recent); !ok {
		t.Error("a denial within the window was not released")
	}
	// A denial dated in the future (a clock that was wrong) is dropped.
	if err := rs.Remember("s", old); err != nil {
		t.Fatal(err)
	}
	c.add(-2 * time.Minute)
	if ok, _ := rs.Remembered("s", old); ok {
		t.Error("a denial dated two minutes ahead is remembered")
	}
}

func TestRouteState_KeepsNoSessionIDOrQueryInTheStore(t *testing.T) {
	st := store.New(memstore.New(nil), nil)
	defer st.Close()
	salt := []byte("sixteen bytes of salt")
	rs := memory.New(&memory.Options{Store: st, Salt: salt}).RouteState(0)
	session := "5e7d1c2a-SESSION-0007"
	for _, q := range []string{"kubernetes QUERYTEXT ingress", "kubectl OTHERTEXT"} {
		if err := rs.Remember(session, routing.Call{Query: q, AllowedDomains: []string{"DOMAINTEXT.io"}}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	key := "route/" + store.Fingerprint([]byte(session), salt)
	e, err := st.Get(ctx, key)
	if err != nil {
		t.Fatalf("the session's state is not under %s: %v", key, err)
	}
	for _, text := range []string{"SESSION", "QUERYTEXT", "OTHERTEXT", "DOMAINTEXT", "domaintext"} {
		if strings.Contains(key+string(e.Value), text) {
			t.Errorf("the store holds %q in the clear: %s = %s", text, key, e.Value)
		}
	}
	if e.Expires.IsZero() || time.Until(e.Expires) > routing.DefaultEscapeWindow {
		t.Errorf("expires %v, want within the escape window", e.Expires)
	}
	if n, err := st.Clear(ctx, "route/"); err != nil || n != 1 {
		t.Errorf("%d values under route/ (%v), want one for the session", n, err)
	}
}

func TestRouteState_ConcurrentRememberAndReleaseLoseNothing(t *testing.T) {
	m, _ := newMemory(t, memory.Options{OpTimeout: 10 * time.Second})
	rs := m.RouteState(0)
	const n = 64
	call := func(i int) routing.Call { return routing.Call{Query: fmt.Sprintf("kubectl subcommand %02d", i)} }
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := rs.Remember("shared", call(i)); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	for i := range n {
		if ok, _ := rs.Remembered("shared", call(i)); !ok {
			t.Errorf("denial %d was lost", i)
		}
	}
	// Half are released while the other half are denied again: each
	// release finds its denial exactly once.
	released := make([]int, n)
	var mu sync.Mutex
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if ok, err := rs.Release("shared", call(i)); err != nil {
				errs <- err
			} else if ok {
				mu.Lock()
				released[i]++
				mu.Unlock()
			}
		}()
		go func() {
			defer wg.Done()
			if ok, err := rs.Release("shared", call(i)); err != nil {
				errs <- err
			} else if ok {
				mu.Lock()
				released[i]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("store call failed: %v", err)
	}
	for i, r := range released {
		if r != 1 {
			t.Errorf("call %d released %d times by two concurrent retries, want once", i, r)
		}
	}
	if m.Problem() != nil {
		t.Errorf("problem: %v", m.Problem())
	}
}

func TestRouteState_FailsWithoutAStoreSoTheRouteDoesNotDeny(t *testing.T) {
	var nilMemory *memory.Memory
	st := store.New(memstore.New(nil), nil)
	st.Close()
	for name, m := range map[string]*memory.Memory{
		"nil memory":   nilMemory,
		"closed store": memory.New(&memory.Options{Store: st}),
	} {
		rs := m.RouteState(0)
		call := routing.Call{Query: "kubectl"}
		if err := rs.Remember("s", call); err == nil || !errors.Is(err, routing.ErrState) {
			t.Errorf("%s: Remember = %v, want an error wrapping routing.ErrState", name, err)
		}
		if ok, err := rs.Release("s", call); ok || err == nil {
			t.Errorf("%s: Release = %v, %v; want false and an error", name, ok, err)
		}
		if ok, err := rs.Remembered("s", call); ok || err == nil {
			t.Errorf("%s: Remembered = %v, %v; want false and an error", name, ok, err)
		}
		docs, _ := routing.NewDocsRouter([]routing.Database{{Keywords: []string{"kubectl"}, Path: "/d", MCPToolName: "mcp__d__search", Description: "d"}})
		if _, matched, deny, err := docs.Route(rs, "s", call); deny || len(matched) != 1 || err == nil {
			t.Errorf("%s: Route deny = %v, err %v; want no denial and the error", name, deny, err)
		}
	}
}
