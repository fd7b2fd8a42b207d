// Package lenient decodes the JSON that provider backends receive, leniently:
// a field of an unexpected type, a null, a number written as a string or a
// date in any of the forms search engines print reads as a value or as
// empty, never as an error that fails the whole answer. Every backend
// reads its answers through it, so that they all accept the same forms.
package lenient

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Object is a JSON object read field by field.
type Object = map[string]json.RawMessage

// ErrNotObject is the error of [Decode] for a body that is not a JSON
// object.
var ErrNotObject = errors.New("the response is not a JSON object")

// Decode decodes a response body into a new T. It fails with ErrNotObject
// when body does not start as a JSON object (an HTML page, a list, null),
// and with [json.Unmarshal]'s error when it is not valid JSON or a field
// that T does not read leniently has an impossible shape (a list of
// results that is not a list).
func Decode[T any](body []byte) (*T, error) {
	if b := bytes.TrimSpace(body); len(b) == 0 || b[0] != '{' {
		return nil, ErrNotObject
	}
	var r T
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Loose decodes data into a P when data is a JSON object of P's shape,
// and returns the zero P otherwise. A type's UnmarshalJSON calls it with a
// method-less copy of itself, so that a null, a string or a mistyped
// member reads as an empty value instead of failing the enclosing
// response:
//
//	func (r *result) UnmarshalJSON(b []byte) error {
//		type plain result
//		*r = result(lenient.Loose[plain](b))
//		return nil
//	}
func Loose[P any](data []byte) P {
	var p P
	if !IsObject(data) || json.Unmarshal(data, &p) != nil {
		var zero P
		return zero
	}
	return p
}

// IsObject reports whether data is, at first glance, a JSON object: after
// white space it starts with '{' and ends with '}'.
func IsObject(data []byte) bool {
	data = bytes.TrimSpace(data)
	return len(data) >= 2 && data[0] == '{' && data[len(data)-1] == '}'
}

// IsNull reports whether raw is absent, blank or the JSON null.
func IsNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// RawString returns raw as a string when it is a JSON string, untrimmed,
// and "" otherwise.
func RawString(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// String returns the first of raws that is a non-blank JSON string,
// trimmed, and "" when there is none; other JSON types are ignored.
func String(raws ...json.RawMessage) string {
	for _, raw := range raws {
		if s := strings.TrimSpace(RawString(raw)); s != "" {
			return s
		}
	}
	return ""
}

// Number reads a finite number written as a JSON number or as a string
// holding one (surrounding white space allowed).
func Number(raw json.RawMessage) (float64, bool) {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return 0, false
	}
	if b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return 0, false
		}
		b = []byte(strings.TrimSpace(s))
	} else if b[0] < '0' || b[0] > '9' {
		if b[0] != '-' {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// Text is a string field read leniently: a JSON string as itself, a list
// as its first non-blank string (some APIs repeat a tag), a number or a
// boolean as its literal, and null or an object as "".
type Text string

// UnmarshalJSON implements json.Unmarshaler.
func (t *Text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*t = ""
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = Text(s)
	case '[':
		var list []json.RawMessage
		if json.Unmarshal(b, &list) != nil {
			return nil
		}
		for _, item := range list {
			if s := RawString(item); strings.TrimSpace(s) != "" {
				*t = Text(s)
				return nil
			}
		}
	case 'n', '{':
	default:
		*t = Text(b)
	}
	return nil
}

// Float is a number field read leniently ([Number]): anything that is not
// a finite number reads as 0.
type Float float64

// UnmarshalJSON implements json.Unmarshaler.
func (f *Float) UnmarshalJSON(b []byte) error {
	v, _ := Number(b)
	*f = Float(v)
	return nil
}

// DateLayouts are the absolute date forms the backends accept: ISO 8601
// variants, RFC 1123/822 (HTTP and feed dates), the C and Unix forms and
// the short English forms search engines print ("Mar 5, 2024"). A form
// without a zone reads as UTC.
var DateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04:05 -0700 MST",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006/01/02",
	"2006.01.02",
	"20060102",
	time.RFC1123Z,
	time.RFC1123,
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 MST",
	time.RFC850,
	time.RFC822Z,
	time.RFC822,
	time.ANSIC,
	time.UnixDate,
	"Jan 2, 2006",
	"January 2, 2006",
	"Jan 2 2006",
	"January 2 2006",
	"Mon, Jan 2, 2006",
	"Monday, January 2, 2006",
	"2 Jan 2006",
	"2 January 2006",
	"2 Jan, 2006",
	"Jan 2006",
	"January 2006",
	"2006-01",
}

// maxDate is the longest date string read; a longer one is not a date.
const maxDate = 64

// ParseDate parses s, trimmed, in one of [DateLayouts] and returns it in
// UTC; it returns the zero time for anything else.
func ParseDate(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxDate {
		return time.Time{}
	}
	for _, l := range DateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

var relativeDate = regexp.MustCompile(`^(\d{1,4}|an?)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\s+ago$`)

// ParseDateAt parses a search hit's date as of now: one of [DateLayouts],
// a relative date ("3 days ago", "yesterday", "just now") counted back
// from now, or a Unix time in seconds or milliseconds written as a number
// of at least nine digits. It returns the time in UTC, and the zero time
// for anything else and for dates before 1970 or more than two days after
// now.
func ParseDateAt(s string, now time.Time) time.Time {
	return bounded(parseDateAt(strings.TrimSpace(s), now), now)
}

// DateAt reads raw, a JSON string or number, as a date as of now: a
// string as [ParseDateAt] does, a number as a Unix time in seconds or
// milliseconds, with the same bounds.
func DateAt(raw json.RawMessage, now time.Time) time.Time {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return ParseDateAt(s, now)
	}
	if f, ok := Number(raw); ok {
		return bounded(UnixTime(f), now)
	}
	return time.Time{}
}

func bounded(t, now time.Time) time.Time {
	if t.IsZero() || t.Year() < 1970 || t.After(now.Add(48*time.Hour)) {
		return time.Time{}
	}
	return t.UTC()
}

func parseDateAt(s string, now time.Time) time.Time {
	if t := ParseDate(s); !t.IsZero() || s == "" || len(s) > maxDate {
		return t
	}
	lower := strings.ToLower(s)
	switch lower {
	case "today", "just now":
		return now
	case "yesterday":
		return now.Add(-24 * time.Hour)
	}
	if m := relativeDate.FindStringSubmatch(lower); m != nil {
		n := 1
		if m[1] != "a" && m[1] != "an" {
			n, _ = strconv.Atoi(m[1])
		}
		var unit time.Duration
		switch strings.TrimSuffix(m[2], "s") {
		case "second", "sec":
			unit = time.Second
		case "minute", "min":
			unit = time.Minute
		case "hour", "hr":
			unit = time.Hour
		case "day":
			unit = 24 * time.Hour
		case "week":
			unit = 7 * 24 * time.Hour
		case "month":
			unit = 30 * 24 * time.Hour
		case "year":
			unit = 365 * 24 * time.Hour
		}
		if float64(n)*float64(unit) > float64(200*365*24*time.Hour) {
			return time.Time{} // would overflow time.Duration
		}
		return now.Add(-time.Duration(n) * unit)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && len(s) >= 9 {
		return UnixTime(f)
	}
	return time.Time{}
}

// UnixTime reads f as Unix seconds, or milliseconds when it is too large
// to be seconds; it returns the zero time for a figure not after 1970 or
// larger than 1e15.
func UnixTime(f float64) time.Time {
	if f <= 0 || f > 1e15 {
		return time.Time{}
	}
	if f > 1e11 {
		return time.UnixMilli(int64(f))
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9))
}

// Seconds reads a wait a provider gives in seconds (a retry-after field,
// a rate-limit reset): 0 unless it is positive and finite, and at most
// max.
func Seconds(secs float64, max time.Duration) time.Duration {
	switch {
	case !(secs > 0) || math.IsNaN(secs):
		return 0
	case secs >= max.Seconds():
		return max
	}
	return time.Duration(secs * float64(time.Second))
}
