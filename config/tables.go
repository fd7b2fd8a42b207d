package config

import (
	"reflect"
	"strings"
)

// takenTable is a list-of-tables setting taken out of a parsed file before
// the rest is loaded: decoded already, or skipped unread.
type takenTable struct {
	items   any           // the parsed list, for the field-name check
	value   reflect.Value // the decoded value, of the field's type
	skipped bool
}

// takeTables takes the list-of-tables settings out of the parsed file m,
// so that the generic loader does not copy them (it copies every value
// several times over, which costs tens of milliseconds for a thousand
// tables). A table in skip is dropped unread. Any other is taken only when
// it is plain data that [decodePlain] decodes; one it cannot (a value of
// another type than its field's, a field name in another case) stays in m
// for the generic decoder, which converts what it can and reports the
// rest.
func takeTables(m map[string]any, skip map[string]bool) map[string]takenTable {
	var out map[string]takenTable
	for _, s := range settingsList {
		if s.Kind != KindTable {
			continue
		}
		path := strings.Split(s.Key, ".")
		parents := []map[string]any{m}
		for _, name := range path[:len(path)-1] {
			next, ok := parents[len(parents)-1][name].(map[string]any)
			if !ok {
				parents = nil
				break
			}
			parents = append(parents, next)
		}
		if parents == nil {
			continue
		}
		last := path[len(path)-1]
		raw, ok := parents[len(parents)-1][last]
		if !ok {
			continue
		}
		t := takenTable{items: raw, skipped: skip[s.Key]}
		if !t.skipped {
			if t.value, ok = decodePlain(raw, s.typ); !ok {
				continue
			}
		}
		if out == nil {
			out = map[string]takenTable{}
		}
		out[s.Key] = t
		// Remove it, and the tables holding it that it leaves empty (they
		// held it, so none of them was an empty table in the file).
		delete(parents[len(parents)-1], last)
		for i := len(parents) - 1; i > 0 && len(parents[i]) == 0; i-- {
			delete(parents[i-1], path[i-1])
		}
	}
	return out
}

// decodePlain decodes raw into a value of type t when raw is exactly what
// a file parser produces for it: a string for a string, a list for a
// slice, a table whose keys are the koanf tags of a struct's fields. It
// reports false for anything else, which the generic decoder then handles
// (it also converts numbers and booleans to strings, matches field names
// in any case, and so on). For the values it accepts, the result is the
// generic decoder's.
func decodePlain(raw any, t reflect.Type) (reflect.Value, bool) {
	switch t.Kind() {
	case reflect.String:
		s, ok := raw.(string)
		if !ok {
			return reflect.Value{}, false
		}
		v := reflect.New(t).Elem()
		v.SetString(s)
		return v, true
	case reflect.Slice:
		items, ok := raw.([]any)
		if !ok {
			return reflect.Value{}, false
		}
		out := reflect.MakeSlice(t, len(items), len(items))
		for i, item := range items {
			v, ok := decodePlain(item, t.Elem())
			if !ok {
				return reflect.Value{}, false
			}
			out.Index(i).Set(v)
		}
		return out, true
	case reflect.Struct:
		m, ok := raw.(map[string]any)
		if !ok {
			return reflect.Value{}, false
		}
		out := reflect.New(t).Elem()
		for name, val := range m {
			i := fieldByTag(t, name)
			if i < 0 {
				return reflect.Value{}, false
			}
			v, ok := decodePlain(val, t.Field(i).Type)
			if !ok {
				return reflect.Value{}, false
			}
			out.Field(i).Set(v)
		}
		return out, true
	}
	return reflect.Value{}, false
}

// fieldByTag returns the index of t's field whose koanf tag is name, or
// -1.
func fieldByTag(t reflect.Type, name string) int {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("koanf"), ",")
		if tag == name && tag != "-" && f.IsExported() {
			return i
		}
	}
	return -1
}
