package providertest

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// AddSeeds adds the content of every file matching pattern (a
// filepath.Match glob such as "testdata/*.json") to f's seed corpus, so a
// backend's decoder fuzz test starts from the same answers its fake server
// serves. It fails f when the pattern is malformed or matches nothing.
func AddSeeds(f *testing.F, pattern string) {
	f.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		f.Fatalf("providertest: bad seed pattern %q: %v", pattern, err)
	}
	if len(files) == 0 {
		f.Fatalf("providertest: no seed file matches %q", pattern)
	}
	sort.Strings(files)
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// Seeds returns a small set of answer bodies with the shapes that break
// careless decoders: null, wrong types, truncated and non-JSON bodies, deep
// nesting, long strings and invalid UTF-8. Add them to a fuzz corpus with
// f.Add.
func Seeds() [][]byte {
	deep := make([]byte, 0, 2002)
	for range 1000 {
		deep = append(deep, '[')
	}
	for range 1000 {
		deep = append(deep, ']')
	}
	return [][]byte{
		[]byte(``),
		[]byte(`null`),
		[]byte(`[]`),
		[]byte(`"results"`),
		[]byte(`{}`),
		[]byte(`{"results":null}`),
		[]byte(`{"results":{}}`),
		[]byte(`{"results":[null,1,"x",[],{}]}`),
		[]byte(`{"results":[{"title":1,"url":true,"score":"high"}]}`),
		[]byte(`{"results":[{"title":"cut`),
		[]byte(`<html><body>502 Bad Gateway</body></html>`),
		[]byte("{\"results\":[{\"title\":\"\xff\xfe\",\"url\":\"https://a.example/\xc3\"}]}"),
		[]byte(`{"results":[{"title":"\ud800","url":"https://a.example"}]}`),
		deep,
	}
}
