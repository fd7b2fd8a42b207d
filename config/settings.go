package config

import (
	"fmt"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind is the type of a [Setting]'s value, which decides how its text is
// read.
type Kind string

// The setting kinds.
const (
	KindString   Kind = "string"
	KindBool     Kind = "bool"
	KindInt      Kind = "int"
	KindBytes    Kind = "bytes"
	KindDuration Kind = "duration"
	KindList     Kind = "list"
	KindKeys     Kind = "keys"
	// KindTable is a list of tables, accepted from a file only.
	KindTable Kind = "table"
)

// Setting describes one configuration setting, derived from the tags of
// [Config]'s fields.
type Setting struct {
	// Key is the setting's key in a configuration file ("search.mode").
	Key string
	// Env is the WEBGATE_ environment variable, or "" for a setting
	// accepted from a file only.
	Env string
	// Legacy lists older environment variable names, in order of
	// precedence; Env beats them all.
	Legacy []string
	// Kind is the value's type.
	Kind Kind
	// Enum lists the accepted values, when the setting has a closed set
	// ("" first when the setting may be empty).
	Enum []string
	// Min and Max bound an int, bytes or duration value; nil means no
	// bound. A duration's bound is in nanoseconds: Min 1 means "more than
	// zero".
	Min, Max *int64
	// URL is true for a setting that must be an absolute http(s) URL.
	URL bool

	index []int
	typ   reflect.Type
}

// EnvPrefix starts every WEBGATE_ environment variable name.
const EnvPrefix = "WEBGATE_"

// EnvName derives the WEBGATE_ variable of a setting's key: [EnvPrefix],
// then the key upper-cased with dots turned into underscores
// ("search.mode" is WEBGATE_SEARCH_MODE). A few settings are read from
// another variable ([Setting].Env says which).
func EnvName(key string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	keySpecType  = reflect.TypeFor[KeySpec]()
	settingsList = walk(reflect.TypeFor[Config](), "", nil, Providers())
)

// Settings returns every setting of [Config], in declaration order.
func Settings() []Setting {
	out := make([]Setting, len(settingsList))
	copy(out, settingsList)
	return out
}

// SettingByKey returns the setting with the key ("providers.tavily.keys"),
// as [Settings] lists it, and whether there is one.
func SettingByKey(key string) (Setting, bool) {
	s, ok := settingByKey(key)
	if !ok {
		return Setting{}, false
	}
	return *s, true
}

// walk lists the settings of the fields of t: a field's koanf tag is its
// key, an embedded struct's fields are settings of the struct that embeds
// it, and the provider registry r annotates the settings of the backends'
// own Config structs (legacy variables, accepted values, bounds) and
// resolves the enums "@search" and "@extract" to the names of the
// providers that can search or extract.
func walk(t reflect.Type, prefix string, index []int, r *Registry) []Setting {
	var out []Setting
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("koanf")
		if f.Anonymous && f.Type.Kind() == reflect.Struct && tag == "" {
			out = append(out, walk(f.Type, prefix, append(slices.Clone(index), i), r)...)
			continue
		}
		if !f.IsExported() || tag == "" || tag == "-" {
			continue
		}
		key := tag
		if prefix != "" {
			key = prefix + "." + tag
		}
		idx := append(slices.Clone(index), i)
		s := Setting{Key: key, Env: EnvName(key), index: idx, typ: f.Type}
		if e := f.Tag.Get("env"); e != "" {
			s.Env = e
		}
		if s.Env == "-" {
			s.Env = ""
		}
		if l := f.Tag.Get("legacy"); l != "" {
			s.Legacy = strings.Split(l, ",")
		}
		s.URL = f.Tag.Get("format") == "url"
		if e, ok := f.Tag.Lookup("enum"); ok {
			for _, v := range strings.Split(e, ",") {
				switch v {
				case "@search":
					s.Enum = append(s.Enum, r.SearchNames()...)
				case "@extract":
					s.Enum = append(s.Enum, r.ExtractNames()...)
				default:
					s.Enum = append(s.Enum, v)
				}
			}
		}
		a, annotated := r.annotationFor(key)
		if annotated {
			s.Legacy = append(s.Legacy, a.legacy...)
			s.Enum = append(s.Enum, a.enum...)
			s.URL = s.URL || a.url
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft == durationType:
			s.Kind = KindDuration
		case f.Type == keySpecType:
			s.Kind = KindKeys
		case f.Type.Kind() == reflect.Struct:
			out = append(out, walk(f.Type, key, idx, r)...)
			continue
		case ft.Kind() == reflect.String:
			s.Kind = KindString
		case ft.Kind() == reflect.Bool:
			s.Kind = KindBool
		case ft.Kind() == reflect.Int || ft.Kind() == reflect.Int64:
			s.Kind = KindInt
			if f.Tag.Get("unit") == "bytes" || a.bytes {
				s.Kind = KindBytes
			}
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.String:
			s.Kind = KindList
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct:
			s.Kind = KindTable
			s.Env = ""
		default:
			panic("config: unsupported field type " + f.Type.String() + " for " + key)
		}
		s.Min = bound(f.Tag.Get("min"), key)
		s.Max = bound(f.Tag.Get("max"), key)
		if annotated {
			if a.min != nil {
				s.Min = a.min
			}
			if a.max != nil {
				s.Max = a.max
			}
		}
		out = append(out, s)
	}
	return out
}

func bound(tag, key string) *int64 {
	if tag == "" {
		return nil
	}
	n, err := strconv.ParseInt(tag, 10, 64)
	if err != nil {
		panic("config: bad bound " + tag + " on " + key)
	}
	return &n
}

// field returns the struct field s describes inside c.
func (s Setting) field(c *Config) reflect.Value {
	return reflect.ValueOf(c).Elem().FieldByIndex(s.index)
}

// parse converts a raw value (a string from the environment, or whatever
// the file parser produced) into a value for s's field. The error message
// never repeats the value.
func (s Setting) parse(raw any) (reflect.Value, string) {
	switch s.Kind {
	case KindString:
		str, ok := raw.(string)
		if !ok {
			return reflect.Value{}, "want a string"
		}
		str = strings.TrimSpace(str)
		if s.Enum != nil {
			str = strings.ToLower(str)
			if !slices.Contains(s.Enum, str) {
				return reflect.Value{}, "not one of " + enumText(s.Enum)
			}
		}
		if s.URL {
			u, err := url.Parse(str)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return reflect.Value{}, "not an absolute http or https URL"
			}
			str = strings.TrimRight(str, "/")
		}
		return reflect.ValueOf(str), ""
	case KindKeys:
		switch v := raw.(type) {
		case string:
			return reflect.ValueOf(KeySpec(strings.TrimSpace(v))), ""
		case []any:
			parts := make([]string, 0, len(v))
			for _, item := range v {
				str, ok := item.(string)
				if !ok {
					return reflect.Value{}, "want a string or a list of strings"
				}
				parts = append(parts, str)
			}
			return reflect.ValueOf(KeySpec(strings.Join(parts, "|"))), ""
		}
		return reflect.Value{}, "want a string or a list of strings"
	case KindBool:
		b, ok := parseBool(raw)
		if !ok {
			return reflect.Value{}, "not a boolean; want true/false, 1/0, yes/no or on/off"
		}
		return reflect.ValueOf(b), ""
	case KindInt, KindBytes:
		n, ok := parseInt(raw, s.Kind == KindBytes)
		if !ok {
			if s.Kind == KindBytes {
				return reflect.Value{}, "not a size; want a number of bytes or a size such as 512KiB or 4MiB"
			}
			return reflect.Value{}, "not a whole number"
		}
		if msg := s.checkBounds(n, func(b int64) string { return strconv.FormatInt(b, 10) }); msg != "" {
			return reflect.Value{}, msg
		}
		return s.intValue(n), ""
	case KindDuration:
		d, ok := parseDuration(raw)
		if !ok {
			return reflect.Value{}, "not a duration; want a Go duration such as 25s or 1m30s, or a number of seconds"
		}
		if d < 0 {
			return reflect.Value{}, "must not be negative"
		}
		if msg := s.checkBounds(int64(d), func(b int64) string {
			if b == 1 {
				return "0s"
			}
			return time.Duration(b).String()
		}); msg != "" {
			return reflect.Value{}, msg
		}
		return reflect.ValueOf(d), ""
	case KindList:
		items, ok := parseList(raw)
		if !ok {
			return reflect.Value{}, "want a list of strings or a comma-separated string"
		}
		if s.Enum != nil {
			if len(items) == 0 {
				return reflect.Value{}, "must name at least one of " + enumText(s.Enum)
			}
			for i, it := range items {
				it = strings.ToLower(it)
				items[i] = it
				if !slices.Contains(s.Enum, it) {
					return reflect.Value{}, fmt.Sprintf("item %d is not one of %s", i+1, enumText(s.Enum))
				}
			}
		}
		var out []string
		for _, it := range items {
			if !slices.Contains(out, it) {
				out = append(out, it)
			}
		}
		return reflect.ValueOf(out), ""
	}
	return reflect.Value{}, "unsupported setting"
}

// intValue returns n as a value of the setting's field type (int, int64
// or a pointer to one).
func (s Setting) intValue(n int64) reflect.Value {
	if s.typ == nil {
		return reflect.ValueOf(int(n))
	}
	return s.wrap(reflect.ValueOf(n))
}

// wrap converts a parsed value to the setting's field type: the same kind
// of a named type, or a pointer to it for an optional setting.
func (s Setting) wrap(v reflect.Value) reflect.Value {
	t := s.typ
	if t == nil || v.Type() == t {
		return v
	}
	if t.Kind() == reflect.Pointer {
		p := reflect.New(t.Elem())
		p.Elem().Set(v.Convert(t.Elem()))
		return p
	}
	return v.Convert(t)
}

func (s Setting) checkBounds(n int64, format func(int64) string) string {
	switch {
	case s.Min != nil && s.Max != nil && (n < *s.Min || n > *s.Max):
		return "must be between " + format(*s.Min) + " and " + format(*s.Max)
	case s.Min != nil && n < *s.Min:
		if *s.Min == 1 {
			return "must be more than " + format(0)
		}
		return "must be at least " + format(*s.Min)
	case s.Max != nil && n > *s.Max:
		return "must be at most " + format(*s.Max)
	}
	return ""
}

func enumText(enum []string) string {
	var shown []string
	for _, e := range enum {
		if e == "" {
			shown = append(shown, `"" (none)`)
			continue
		}
		shown = append(shown, e)
	}
	return strings.Join(shown, ", ")
}

func parseBool(raw any) (bool, bool) {
	switch v := raw.(type) {
	case bool:
		return v, true
	case int64:
		return v != 0, v == 0 || v == 1
	case int:
		return v != 0, v == 0 || v == 1
	case float64:
		return v != 0, v == 0 || v == 1
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "1", "true", "yes", "on":
			return true, true
		case "0", "false", "no", "off":
			return false, true
		}
	}
	return false, false
}

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1000}, {"mb", 1000 * 1000}, {"gb", 1000 * 1000 * 1000},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

func parseInt(raw any, sizes bool) (int64, bool) {
	switch v := raw.(type) {
	case int:
		return int64(v), true
	case int64:
		return v, true
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return 0, false
		}
		return int64(v), true
	case string:
		t := strings.ToLower(strings.TrimSpace(v))
		mult := int64(1)
		if sizes {
			for _, u := range sizeUnits {
				if rest, ok := strings.CutSuffix(t, u.suffix); ok {
					t, mult = strings.TrimSpace(rest), u.mult
					break
				}
			}
		}
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil || n > math.MaxInt64/mult || n < math.MinInt64/mult {
			return 0, false
		}
		return n * mult, true
	}
	return 0, false
}

func parseDuration(raw any) (time.Duration, bool) {
	secs := func(f float64) (time.Duration, bool) {
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > float64(math.MaxInt64)/float64(time.Second) {
			return 0, false
		}
		return time.Duration(f * float64(time.Second)), true
	}
	switch v := raw.(type) {
	case int:
		return secs(float64(v))
	case int64:
		return secs(float64(v))
	case float64:
		return secs(v)
	case string:
		t := strings.TrimSpace(v)
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return secs(f)
		}
		d, err := time.ParseDuration(t)
		return d, err == nil
	}
	return 0, false
}

func parseList(raw any) ([]string, bool) {
	switch v := raw.(type) {
	case string:
		var out []string
		for p := range strings.SplitSeq(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, true
	case []any:
		out := make([]string, 0, len(v))
		for _, item := range v {
			str, ok := item.(string)
			if !ok {
				return nil, false
			}
			if str = strings.TrimSpace(str); str != "" {
				out = append(out, str)
			}
		}
		return out, true
	case []string:
		return slices.Clone(v), true
	}
	return nil, false
}

// formatValue renders a field's value the way the reference documents
// defaults: durations as Go durations, lists comma-separated, sizes with a
// binary unit when exact, empty values as "".
func (s Setting) formatValue(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	switch s.Kind {
	case KindDuration:
		d := time.Duration(v.Int())
		if d == 0 {
			return "0s"
		}
		return d.String()
	case KindList:
		return strings.Join(v.Interface().([]string), ",")
	case KindBytes:
		n := v.Int()
		for _, u := range []struct {
			s string
			m int64
		}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
			if n >= u.m && n%u.m == 0 {
				return strconv.FormatInt(n/u.m, 10) + u.s
			}
		}
		return strconv.FormatInt(n, 10)
	case KindTable:
		if v.Len() == 0 {
			return ""
		}
		return fmt.Sprintf("%d entries", v.Len())
	case KindKeys:
		return v.Interface().(KeySpec).String()
	}
	return fmt.Sprint(v.Interface())
}

// Value returns the value of the setting with the given key as the
// reference documents values ("25s", "tavily,exa", "4MiB"), and false for
// an unknown key. Keys are shown by [KeySpec.String], never in full.
func (c *Config) Value(key string) (string, bool) {
	s, ok := settingByKey(key)
	if !ok {
		return "", false
	}
	return s.formatValue(s.field(c)), true
}
