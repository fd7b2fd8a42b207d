package lenient

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"
)

// formerLayouts are the date layouts each backend accepted before they
// shared this package. Every one must still be accepted, and read as the
// same instant.
var formerLayouts = map[string][]string{
	"exa": {time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"},
	"jina": {
		time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02",
		"Jan 2, 2006", "January 2, 2006", "2 Jan 2006", "2 January 2006", time.RFC1123Z, time.RFC1123,
	},
	"searxng": {
		time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999", "2006-01-02",
	},
	"websearchapi": {
		time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05Z0700",
		"2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05 -0700 MST", "2006-01-02 15:04",
		"2006-01-02", "2006/01/02", "2006.01.02", "20060102", time.RFC1123Z, time.RFC1123,
		"Mon, 2 Jan 2006 15:04:05 -0700", "Mon, 2 Jan 2006 15:04:05 MST", time.RFC850,
		time.RFC822Z, time.RFC822, time.ANSIC, time.UnixDate, "Jan 2, 2006", "January 2, 2006",
		"Jan 2 2006", "January 2 2006", "Mon, Jan 2, 2006", "Monday, January 2, 2006", "2 Jan 2006",
		"2 January 2006", "2 Jan, 2006", "Jan 2006", "January 2006", "2006-01",
	},
}

func TestParseDate_AcceptsEveryLayoutAnyBackendAccepted(t *testing.T) {
	at := []time.Time{
		time.Date(2025, 3, 4, 10, 11, 12, 500_000_000, time.UTC),
		time.Date(2024, 12, 25, 23, 5, 0, 0, time.FixedZone("CET", 3600)),
	}
	n := 0
	for backend, layouts := range formerLayouts {
		for _, layout := range layouts {
			for _, ref := range at {
				s := ref.Format(layout)
				want, err := time.Parse(layout, s)
				if err != nil {
					t.Fatalf("%s: %q does not read back in its own layout %q: %v", backend, s, layout, err)
				}
				n++
				if got := ParseDate(s); !got.Equal(want) {
					t.Errorf("%s's layout %q: ParseDate(%q) = %v, want %v", backend, layout, s, got, want)
				}
				now := ref.Add(time.Hour)
				if got := ParseDateAt(s, now); !got.Equal(want) {
					t.Errorf("%s's layout %q: ParseDateAt(%q) = %v, want %v", backend, layout, s, got, want)
				}
			}
		}
	}
	if n < 2*52 {
		t.Fatalf("checked %d dates, want every former layout", n)
	}
}

func TestParseDateAt_ReadsRelativeAndUnixDatesWithinBounds(t *testing.T) {
	now := time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"3 days ago", now.Add(-72 * time.Hour)},
		{"an hour ago", now.Add(-time.Hour)},
		{"a minute ago", now.Add(-time.Minute)},
		{"2 hrs ago", now.Add(-2 * time.Hour)},
		{"5 Mins ago", now.Add(-5 * time.Minute)},
		{"10 seconds ago", now.Add(-10 * time.Second)},
		{"1 week ago", now.Add(-7 * 24 * time.Hour)},
		{"2 months ago", now.Add(-60 * 24 * time.Hour)},
		{"1 year ago", now.Add(-365 * 24 * time.Hour)},
		{"yesterday", now.Add(-24 * time.Hour)},
		{"Today", now},
		{"1741089600", time.Unix(1741089600, 0)},
		{"1741089600000", time.UnixMilli(1741089600000)},
		{"9999 years ago", time.Time{}},
		{"1969-12-31", time.Time{}},
		{"2025-03-10", time.Time{}},
		{"soon", time.Time{}},
		{"", time.Time{}},
		{"12345", time.Time{}},
	} {
		if got := ParseDateAt(tc.in, now); !got.Equal(tc.want) {
			t.Errorf("ParseDateAt(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if got := DateAt(json.RawMessage(`1741089600`), now); !got.Equal(time.Unix(1741089600, 0)) {
		t.Errorf("DateAt(number) = %v", got)
	}
	if got := DateAt(json.RawMessage(`"2 days ago"`), now); !got.Equal(now.Add(-48 * time.Hour)) {
		t.Errorf("DateAt(string) = %v", got)
	}
	if got := DateAt(json.RawMessage(`{}`), now); !got.IsZero() {
		t.Errorf("DateAt(object) = %v", got)
	}
}

func TestNumber_ReadsFiniteNumbersAndNumericStrings(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{`12.5`, 12.5, true},
		{`-3`, -3, true},
		{` "  7 " `, 7, true},
		{`"1e3"`, 1000, true},
		{`"NaN"`, 0, false},
		{`"Infinity"`, 0, false},
		{`1e400`, 0, false},
		{`"abc"`, 0, false},
		{`true`, 0, false},
		{`null`, 0, false},
		{`{}`, 0, false},
		{``, 0, false},
	} {
		got, ok := Number(json.RawMessage(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("Number(%s) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		var f Float
		if tc.in == "" {
			continue
		}
		if err := json.Unmarshal([]byte(tc.in), &f); err != nil || float64(f) != tc.want {
			t.Errorf("Float(%s) = %v, %v; want %v", tc.in, f, err, tc.want)
		}
	}
}

func TestText_ReadsAnyShapeWithoutFailing(t *testing.T) {
	var v struct {
		A, B, C, D, E, F, G, H Text
	}
	in := `{"A":"x","B":12,"C":true,"D":null,"E":{"k":1},"F":[" ","y","z"],"G":[1,2],"H":"  pad "}`
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	got := []Text{v.A, v.B, v.C, v.D, v.E, v.F, v.G, v.H}
	want := []Text{"x", "12", "true", "", "", "y", "", "  pad "}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("field %c = %q, want %q", 'A'+i, got[i], want[i])
		}
	}
}

func TestStringsAndNulls(t *testing.T) {
	if !IsNull(nil) || !IsNull(json.RawMessage(" null ")) || IsNull(json.RawMessage(`""`)) {
		t.Error("IsNull")
	}
	if got := String(json.RawMessage(`"  "`), json.RawMessage(`3`), json.RawMessage(`" b "`)); got != "b" {
		t.Errorf("String = %q, want the first non-blank string", got)
	}
	if got := RawString(json.RawMessage(`" a "`)); got != " a " {
		t.Errorf("RawString = %q", got)
	}
	if got := String(json.RawMessage(`{}`)); got != "" {
		t.Errorf("String(object) = %q", got)
	}
}

func TestDecode_NeedsAnObjectAndKeepsStrictFields(t *testing.T) {
	type answer struct {
		Results []struct {
			Title Text `json:"title"`
		} `json:"results"`
	}
	r, err := Decode[answer]([]byte(` {"results":[{"title":7},{"title":"Go"}]} `))
	if err != nil || len(r.Results) != 2 || r.Results[1].Title != "Go" {
		t.Fatalf("Decode = %+v, %v", r, err)
	}
	for _, body := range []string{"", "  ", "null", "[]", `"{}"`, "<html>"} {
		if _, err := Decode[answer]([]byte(body)); !errors.Is(err, ErrNotObject) {
			t.Errorf("Decode(%q) error = %v, want ErrNotObject", body, err)
		}
	}
	for _, body := range []string{`{"results":{"title":"x"}}`, `{"results":`} {
		if _, err := Decode[answer]([]byte(body)); err == nil || errors.Is(err, ErrNotObject) {
			t.Errorf("Decode(%q) error = %v, want json's", body, err)
		}
	}
}

func TestLoose_ReadsAnythingButAnObjectOfItsShapeAsZero(t *testing.T) {
	type entry struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	}
	if got := Loose[entry]([]byte(`{"name":"a","n":2}`)); got != (entry{"a", 2}) {
		t.Errorf("Loose = %+v", got)
	}
	for _, data := range []string{"", "null", `"x"`, "[1]", "3", `{"name":"a","n":"two"}`, `{"name":`} {
		if got := Loose[entry]([]byte(data)); got != (entry{}) {
			t.Errorf("Loose(%q) = %+v, want the zero entry", data, got)
		}
	}
}

func TestSeconds(t *testing.T) {
	for _, c := range []struct {
		secs float64
		want time.Duration
	}{
		{1.5, 1500 * time.Millisecond},
		{0, 0},
		{-3, 0},
		{math.NaN(), 0},
		{math.Inf(1), time.Hour},
		{7200, time.Hour},
	} {
		if got := Seconds(c.secs, time.Hour); got != c.want {
			t.Errorf("Seconds(%v, 1h) = %v, want %v", c.secs, got, c.want)
		}
	}
}
