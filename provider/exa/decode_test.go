package exa

import (
	"github.com/webgate-dev/webgate/provider/internal/lenient"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeSearch_ReadsTheNewCostShapeAndSearchType(t *testing.T) {
	r, err := decodeSearch(readFixture(t, "search.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.CostDollars == nil || r.CostDollars.Total != 0.007 || len(r.CostDollars.Search) == 0 || len(r.CostDollars.Contents) == 0 {
		t.Errorf("costDollars = %+v", r.CostDollars)
	}
	if r.resolvedType() != "neural" {
		t.Errorf("resolved type = %q, want neural", r.resolvedType())
	}
}

func TestDecodeSearch_ReadsTheOldCostShapeAndResolvedSearchType(t *testing.T) {
	r, err := decodeSearch(readFixture(t, "search_old_cost.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := r.CostDollars
	if c == nil || c.Total != 0.005 || len(c.BreakDown) == 0 || len(c.PerRequestPrices) == 0 || len(c.PerPagePrices) == 0 {
		t.Errorf("costDollars = %+v", c)
	}
	if r.resolvedType() != "keyword" {
		t.Errorf("resolved type = %q, want keyword", r.resolvedType())
	}
	// A score sent as a string still decodes; text and highlights echoed as
	// booleans decode as empty.
	a := r.Results[0]
	if a.Score == nil || *a.Score != 0.9 || a.Text != "" || a.Highlights != nil {
		t.Errorf("result 0 = %+v", a)
	}
}

func TestDecodeSearch_NeverFailsOnOddCostOrLeafTypes(t *testing.T) {
	for _, body := range []string{
		`{"costDollars":"0.01"}`,
		`{"costDollars":[1,2]}`,
		`{"costDollars":{"total":"0.01","breakDown":{}}}`,
		`{"results":[{"score":{},"publishedDate":7,"author":[],"highlights":[1,"a",null],"title":false}]}`,
		`{"results":[1,"x",null,[]]}`,
		`{"searchType":5,"resolvedSearchType":null,"requestId":{}}`,
		`{"output":{"content":[1,2]}}`,
	} {
		if _, err := decodeSearch([]byte(body)); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func TestDecodeContents_ReadsStatusesWithNullableErrors(t *testing.T) {
	body := `{"statuses":[{"id":"a","status":"success","error":null},` +
		`{"id":"b","status":"error","error":{"tag":"CRAWL_TIMEOUT","httpStatusCode":null}},` +
		`{"id":"c","status":"error","error":"CRAWL_NOT_FOUND"},null]}`
	r, err := decodeContents([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Statuses) != 4 || r.Statuses[0].Error != nil || r.Statuses[1].Error.Tag != "CRAWL_TIMEOUT" ||
		r.Statuses[1].Error.HTTPStatusCode != nil || r.Statuses[2].Error.Tag != "CRAWL_NOT_FOUND" {
		t.Errorf("statuses = %+v", r.Statuses)
	}
}

func TestParsePublished_AcceptsTimestampsAndPlainDates(t *testing.T) {
	for in, want := range map[string]string{
		"2023-11-16T01:36:32.547Z":  "2023-11-16T01:36:32.547Z",
		"2023-11-16T01:36:32+02:00": "2023-11-15T23:36:32Z",
		"2023-11-16T01:36:32":       "2023-11-16T01:36:32Z",
		"2024-05-01":                "2024-05-01T00:00:00Z",
		"yesterday":                 "0001-01-01T00:00:00Z",
		"":                          "0001-01-01T00:00:00Z",
	} {
		if got := lenient.ParseDate(in).Format("2006-01-02T15:04:05.999Z07:00"); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
}

func TestSnippet_CutsLongTextAtAWordBoundary(t *testing.T) {
	text := strings.Repeat("wörd ", 200)
	s := snippet(wireResult{Text: flexString(text)})
	if !strings.HasSuffix(s, "…") || !utf8.ValidString(s) || len([]rune(s)) > snippetRunes+1 {
		t.Errorf("snippet = %q", s)
	}
	if strings.Contains(s, "wör…") {
		t.Errorf("snippet cut inside a word: %q", s)
	}
}
