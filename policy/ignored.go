package policy

import (
	"slices"

	"github.com/webgate-dev/webgate/provider"
)

// addIgnored adds to dst (made when nil) what the provider s, named name,
// did not apply of q in its answer res: the entries of res.Ignored (those
// of a backend, or of every backend of a nested policy) and, when the
// answer has no entry under name, what s says it ignores
// ([provider.Ignorer]). It never changes res, which may be shared, and
// returns dst, still nil when nothing was ignored.
func addIgnored(dst map[string][]string, s provider.Searcher, name string, q provider.Query, res *provider.Results) map[string][]string {
	add := func(n string, filters []string) {
		for _, f := range filters {
			if f == "" || slices.Contains(dst[n], f) {
				continue
			}
			if dst == nil {
				dst = map[string][]string{}
			}
			dst[n] = append(dst[n], f)
		}
	}
	if res != nil {
		for n, filters := range res.Ignored {
			add(n, filters)
		}
	}
	if res == nil || res.Ignored[name] == nil {
		add(name, provider.IgnoresOf(s, q))
	}
	return dst
}
