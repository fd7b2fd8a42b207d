package provider_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/webgate-dev/webgate/provider"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseKeys_AcceptsEverySpecificationForm(t *testing.T) {
	jsonFile := writeFile(t, "keys.json", "  [\"tvly-a\", \" tvly-b \", \"\", \"tvly-c\"]\n")
	lineFile := writeFile(t, "keys.txt", "# production keys\ntvly-a\n\n   \n  tvly-b  \n# tvly-commented\ntvly-c\n")
	emptyFile := writeFile(t, "empty.txt", "\n# nothing here\n")
	for _, tc := range []struct {
		name, spec string
		want       []string
	}{
		{"a single key", "tvly-abc", []string{"tvly-abc"}},
		{"a single key with spaces around it", "  tvly-abc \n", []string{"tvly-abc"}},
		{"an inline pool", "k1|k2|k3", []string{"k1", "k2", "k3"}},
		{"an inline pool with blanks", "k1| |k2||", []string{"k1", "k2"}},
		{"a JSON array file", jsonFile, []string{"tvly-a", "tvly-b", "tvly-c"}},
		{"a line file with blank lines and comments", lineFile, []string{"tvly-a", "tvly-b", "tvly-c"}},
		{"a file with no keys", emptyFile, nil},
		{"an empty spec", "", nil},
		{"a blank spec", "   ", nil},
		{"a key with a slash that is not a file", "abc/def", []string{"abc/def"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := provider.ParseKeys(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseKeys = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseKeys_ReadsARelativeFileThatExists(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keys.txt"), []byte("k1\nk2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, spec := range []string{"keys.txt", "./keys.txt"} {
		got, err := provider.ParseKeys(spec)
		if err != nil || !reflect.DeepEqual(got, []string{"k1", "k2"}) {
			t.Errorf("ParseKeys(%q) = %q, %v; want the file's keys", spec, got, err)
		}
	}
}

func TestParseKeys_NamesAMissingPathButNoKey(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir", "keys.txt")
	_, err := provider.ParseKeys(missing)
	if err == nil {
		t.Fatal("ParseKeys of a missing file succeeded")
	}
	if !errors.Is(err, provider.ErrKeyFile) {
		t.Errorf("error %v does not wrap ErrKeyFile", err)
	}
	if !strings.Contains(err.Error(), missing) {
		t.Errorf("error %q does not name the path", err)
	}
}

func TestParseKeys_NeverQuotesKeysFromABrokenFile(t *testing.T) {
	p := writeFile(t, "keys.json", `["tvly-secret-one", "tvly-secret-two"`)
	_, err := provider.ParseKeys(p)
	if err == nil {
		t.Fatal("ParseKeys of a broken JSON file succeeded")
	}
	if strings.Contains(err.Error(), "tvly-secret") {
		t.Errorf("error %q quotes a key", err)
	}
	if !strings.Contains(err.Error(), p) {
		t.Errorf("error %q does not name the path", err)
	}
}

func TestNewPool_DropsBlanksAndDuplicates(t *testing.T) {
	p := provider.NewPool([]string{"a", " ", "b", "a", " b ", ""}, nil)
	if p.Len() != 2 {
		t.Fatalf("Len = %d, want 2", p.Len())
	}
	var nilPool *provider.Pool
	if nilPool.Len() != 0 {
		t.Error("a nil pool has keys")
	}
	if ks := provider.NewPool(nil, nil).Keys(context.Background()); len(ks) != 0 {
		t.Errorf("an empty pool gave keys %v", ks)
	}
}

func secrets(ks []provider.Key) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.Secret()
	}
	return out
}

func TestPool_RoundRobinStartsEachRequestAtTheNextKey(t *testing.T) {
	p := provider.NewPool([]string{"a", "b", "c"}, &provider.PoolConfig{Order: provider.RoundRobin})
	want := [][]string{{"a", "b", "c"}, {"b", "c", "a"}, {"c", "a", "b"}, {"a", "b", "c"}}
	for i, w := range want {
		if got := secrets(p.Keys(context.Background())); !reflect.DeepEqual(got, w) {
			t.Errorf("request %d: keys %q, want %q", i+1, got, w)
		}
	}
}

func TestPool_ShuffleIsDeterministicWithAnInjectedSource(t *testing.T) {
	keys := []string{"a", "b", "c", "d", "e"}
	newPool := func() *provider.Pool {
		return provider.NewPool(keys, &provider.PoolConfig{Rand: rand.New(rand.NewPCG(1, 2))})
	}
	p1, p2 := newPool(), newPool()
	orders := map[string]bool{}
	for i := range 20 {
		a, b := secrets(p1.Keys(context.Background())), secrets(p2.Keys(context.Background()))
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("request %d: pools with the same seed gave %q and %q", i, a, b)
		}
		sorted := append([]string(nil), a...)
		slices.Sort(sorted)
		if !reflect.DeepEqual(sorted, keys) {
			t.Fatalf("request %d: %q is not a permutation of every key", i, a)
		}
		orders[strings.Join(a, "")] = true
	}
	if len(orders) < 2 {
		t.Errorf("20 shuffled requests all used the order %v", orders)
	}
}

func TestPool_CountsReportedOutcomesPerKey(t *testing.T) {
	p := provider.NewPool([]string{"a", "b"}, &provider.PoolConfig{Order: provider.RoundRobin})
	ks := p.Keys(context.Background())
	p.Report(ks[0], "")
	p.Report(ks[0], "")
	p.Report(ks[0], provider.KindRateLimited)
	p.Report(ks[1], provider.KindAuth)
	if got, want := p.Outcomes(1), map[provider.Kind]int{"ok": 2, provider.KindRateLimited: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("Outcomes(1) = %v, want %v", got, want)
	}
	if got, want := p.Outcomes(2), map[provider.Kind]int{provider.KindAuth: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("Outcomes(2) = %v, want %v", got, want)
	}
	p.Outcomes(1)["ok"] = 99
	if p.Outcomes(1)["ok"] != 2 {
		t.Error("Outcomes returned the pool's own map")
	}
	if got := p.Outcomes(7); len(got) != 0 {
		t.Errorf("Outcomes of an unknown index = %v, want empty", got)
	}
}

func TestPool_IsSafeForConcurrentUse(t *testing.T) {
	for _, order := range []provider.Order{provider.Shuffle, provider.RoundRobin} {
		p := provider.NewPool([]string{"a", "b", "c"}, &provider.PoolConfig{Order: order})
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 50 {
					ks := p.Keys(context.Background())
					p.Report(ks[0], "")
					_ = p.Outcomes(1)
				}
			}()
		}
		wg.Wait()
		total := 0
		for i := 1; i <= 3; i++ {
			total += p.Outcomes(i)["ok"]
		}
		if total != 400 {
			t.Errorf("%s: recorded %d outcomes, want 400", order, total)
		}
	}
}

func TestKey_NeverPrintsItsSecret(t *testing.T) {
	const secret = "tvly-SECRET-value-123"
	k := provider.NewPool([]string{"other", secret}, &provider.PoolConfig{Order: provider.RoundRobin}).Keys(context.Background())[1]
	if k.Secret() != secret || k.Index() != 2 {
		t.Fatalf("Secret/Index = %q/%d", k.Secret(), k.Index())
	}
	type exported struct {
		Key  provider.Key
		Keys []provider.Key
	}
	type unexported struct {
		key  provider.Key
		keys []provider.Key
		ptr  *provider.Key
	}
	values := map[string]any{
		"a Key":                           k,
		"a *Key":                          &k,
		"a []Key":                         []provider.Key{k},
		"a struct with exported fields":   exported{Key: k, Keys: []provider.Key{k}},
		"a *struct with exported fields":  &exported{Key: k},
		"a struct with unexported fields": unexported{key: k, keys: []provider.Key{k}, ptr: &k},
		"a map of keys":                   map[string]provider.Key{"k": k},
		"an error wrapping a key":         fmt.Errorf("using %v", k),
	}
	for name, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
			if out := fmt.Sprintf(verb, v); strings.Contains(out, secret) {
				t.Errorf("%s printed with %s shows the secret: %s", name, verb, out)
			}
		}
	}
	if got := fmt.Sprint(k); got != "key#2" {
		t.Errorf("Key prints as %q, want key#2", got)
	}
	if got := fmt.Sprintf("%#v", k); got != "key#2" {
		t.Errorf("Key %%#v prints as %q, want key#2", got)
	}
	var zero provider.Key
	if zero.Secret() != "" {
		t.Error("the zero Key has a secret")
	}
}
