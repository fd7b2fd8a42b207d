package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

// FuzzSettingsRoundTrip reads and rewrites arbitrary documents: the reader
// accepts exactly what encoding/json accepts (within the nesting cap),
// never panics, the rewrite of an untouched document is the document, the
// rewrite of one with webgate's entries added or removed is valid JSON,
// and its encoding keeps every string, key and number byte for byte, in
// order, stays within a fixed multiple of the input's size, and reads
// back to itself.
func FuzzSettingsRoundTrip(f *testing.F) {
	for _, s := range []string{
		rawSettings,
		userSettings,
		`{}`, `[]`, `""`, `0`, `-0`, `1e400`, `null`,
		`{"a":"\ud83d"}`,
		`{"\ud800x":["\udfff",1.0,-0.0e-0]}`,
		`{"a":1,"a":2}`,
		`{"s":"\u00e9\/\"\\\b\f\n\r\t"}`,
		"{\"raw\":\"\xff\xfe\xc0\xaf\"}",
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		"{\r\n\t\"hooks\": {\"Stop\": [{\"hooks\":[{\"type\":\"command\",\"command\":\"/x/websearch\"}]}], \"PreToolUse\": []}\r\n}",
		`{ "hooks" : { "PreToolUse" : [ { "matcher" : "WebSearch" , "hooks" : [ { "command" : "websearch" } , 1 ] } ] } }`,
		`{"a":[1,2,`, `{"a" 1}`, `[01]`, `[1.]`, `[-]`, `tru`, "\"\x01\"", `"\x"`, `"\u12g4"`, "\xef\xbb\xbf{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parseJSON(data)
		if err != nil {
			if errors.Is(err, errTooDeep) {
				return
			}
			if json.Valid(data) {
				t.Fatalf("valid JSON refused: %v", err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatal("invalid JSON accepted")
		}
		out := encodeJSON(v)
		if limit := 3*MaxSettingsDepth*len(data) + 16; len(out) > limit {
			t.Fatalf("%d bytes written for %d read", len(out), len(data))
		}
		if got, want := rawScalars(out), rawScalars(data); !slices.Equal(got, want) {
			t.Fatalf("scalars changed:\n got %q\nwant %q", got, want)
		}
		v2, err := parseJSON(out)
		if err != nil {
			t.Fatalf("the rewrite does not read back: %v\n%s", err, out)
		}
		if again := encodeJSON(v2); !bytes.Equal(again, out) {
			t.Fatalf("a second rewrite differs:\n%s\nthen\n%s", out, again)
		}
		if _, err := encodeJSONLimit(v, len(out)/2); len(out) > 64 && err == nil {
			t.Fatal("the limit was not applied")
		}
		if o, ok := v.(*object); ok {
			if same, err := rewriteJSON(data, o, 0); err != nil || !bytes.Equal(same, data) {
				t.Fatalf("an untouched document is rewritten as\n%q\nnot\n%q (%v)", same, data, err)
			}
			opts := Options{WebSearchBin: "/bin/websearch", WebFetchBin: "/bin/webfetch", SessionStart: true}
			opts.defaults()
			for _, install := range []bool{true, false} {
				editClaude(o, opts, install, &Plan{})
				if out, err := rewriteJSON(data, o, 0); err != nil || !json.Valid(out) {
					t.Fatalf("install %v: the rewrite is not JSON (%v):\n%s", install, err, out)
				}
			}
		}
	})
}
