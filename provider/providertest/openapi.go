package providertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// OpenAPI is a provider's published OpenAPI document (3.0 or 3.1, JSON or
// YAML), used to check the JSON bodies a backend sends and the canned
// answers its tests serve.
//
// It validates a subset of JSON Schema that covers what provider specs use
// for request and response bodies: local $ref, type (string, integer,
// number, boolean, array, object, null; a single type or a list), nullable,
// enum, const, required, properties, additionalProperties (false or a
// schema), items, minItems/maxItems, minLength/maxLength,
// minimum/maximum and their exclusive forms, allOf, anyOf and oneOf.
// oneOf is checked like anyOf (at least one branch must match), because
// provider specs often list overlapping branches. Formats, patterns and
// remote $refs are not checked. Unknown properties are accepted unless the
// schema sets additionalProperties to false.
type OpenAPI struct {
	doc map[string]any
}

// LoadOpenAPI reads an OpenAPI document from a .json, .yaml or .yml file.
func LoadOpenAPI(path string) (*OpenAPI, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	o, err := ParseOpenAPI(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return o, nil
}

// ParseOpenAPI parses an OpenAPI document given as JSON or YAML.
func ParseOpenAPI(data []byte) (*OpenAPI, error) {
	var raw any
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		if err := d.Decode(&raw); err != nil {
			return nil, fmt.Errorf("parsing OpenAPI JSON: %w", err)
		}
	} else {
		if err := yaml.Unmarshal(data, &raw); err != nil {
			return nil, fmt.Errorf("parsing OpenAPI YAML: %w", err)
		}
		raw = normalizeYAML(raw)
	}
	doc, ok := raw.(map[string]any)
	if !ok {
		return nil, errors.New("OpenAPI document is not an object")
	}
	if _, ok := doc["paths"].(map[string]any); !ok {
		return nil, errors.New("OpenAPI document has no paths")
	}
	return &OpenAPI{doc: doc}, nil
}

// normalizeYAML turns YAML maps with non-string keys (such as response
// codes written as numbers) into map[string]any, recursively.
func normalizeYAML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeYAML(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = normalizeYAML(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalizeYAML(e)
		}
		return x
	}
	return v
}

// RequestValidator returns a function that validates a request body of
// method and path, ready for [Wire].ValidateSearch and ValidateExtract.
func (o *OpenAPI) RequestValidator(method, path string) func(body []byte) error {
	return func(body []byte) error { return o.ValidateRequest(method, path, body) }
}

// ValidateRequest checks a JSON request body against the request schema of
// method and path ("POST", "/search"). Path templates such as
// "/research/{id}" match any value in that segment. The error lists every
// violation found, each with its JSON pointer.
func (o *OpenAPI) ValidateRequest(method, path string, body []byte) error {
	opn, err := o.operation(method, path)
	if err != nil {
		return err
	}
	rb, ok := o.deref(opn["requestBody"]).(map[string]any)
	if !ok {
		return fmt.Errorf("%s %s has no request body in the spec", method, path)
	}
	schema, err := jsonSchema(rb)
	if err != nil {
		return fmt.Errorf("%s %s request: %w", method, path, err)
	}
	return o.validateBody(schema, body)
}

// ValidateResponse checks a JSON response body against the schema the spec
// gives for method, path and status (falling back to "2XX"-style ranges and
// "default").
func (o *OpenAPI) ValidateResponse(method, path string, status int, body []byte) error {
	opn, err := o.operation(method, path)
	if err != nil {
		return err
	}
	responses, _ := opn["responses"].(map[string]any)
	var resp any
	for _, code := range []string{strconv.Itoa(status), fmt.Sprintf("%dXX", status/100), fmt.Sprintf("%dxx", status/100), "default"} {
		if r, ok := responses[code]; ok {
			resp = r
			break
		}
	}
	r, ok := o.deref(resp).(map[string]any)
	if !ok {
		return fmt.Errorf("%s %s has no response %d in the spec", method, path, status)
	}
	schema, err := jsonSchema(r)
	if err != nil {
		return fmt.Errorf("%s %s response %d: %w", method, path, status, err)
	}
	return o.validateBody(schema, body)
}

// Validate checks a JSON document against the schema at a local reference
// such as "#/components/schemas/Result".
func (o *OpenAPI) Validate(ref string, body []byte) error {
	schema, err := o.resolve(ref)
	if err != nil {
		return err
	}
	return o.validateBody(schema, body)
}

func (o *OpenAPI) validateBody(schema any, body []byte) error {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	if d.More() {
		return errors.New("body has data after the JSON value")
	}
	var errs []string
	o.check(schema, v, "", &errs, 0)
	if len(errs) == 0 {
		return nil
	}
	sort.Strings(errs)
	return errors.New(strings.Join(errs, "; "))
}

func (o *OpenAPI) operation(method, path string) (map[string]any, error) {
	paths := o.doc["paths"].(map[string]any)
	item, ok := paths[path]
	if !ok {
		for tmpl, it := range paths {
			if pathMatches(tmpl, path) {
				item, ok = it, true
				break
			}
		}
	}
	if !ok {
		return nil, fmt.Errorf("path %s is not in the spec", path)
	}
	m, _ := o.deref(item).(map[string]any)
	opn, ok := m[strings.ToLower(method)].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s %s is not in the spec", method, path)
	}
	return opn, nil
}

func pathMatches(tmpl, path string) bool {
	ts, ps := strings.Split(tmpl, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) {
		return false
	}
	for i := range ts {
		if strings.HasPrefix(ts[i], "{") && strings.HasSuffix(ts[i], "}") && ps[i] != "" {
			continue
		}
		if ts[i] != ps[i] {
			return false
		}
	}
	return true
}

// jsonSchema returns the JSON media type's schema of a request body or
// response object.
func jsonSchema(obj map[string]any) (any, error) {
	content, _ := obj["content"].(map[string]any)
	if s, ok := content["application/json"].(map[string]any); ok {
		return s["schema"], nil
	}
	for mt, c := range content {
		if strings.Contains(mt, "json") {
			if s, ok := c.(map[string]any); ok {
				return s["schema"], nil
			}
		}
	}
	return nil, errors.New("no JSON schema in the spec")
}

// resolve follows a local reference ("#/components/schemas/X").
func (o *OpenAPI) resolve(ref string) (any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("unsupported $ref %q (only local references)", ref)
	}
	var cur any = o.doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
	}
	return cur, nil
}

// deref follows $ref chains; it returns nil for a reference that does not
// resolve.
func (o *OpenAPI) deref(v any) any {
	for range 32 {
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return v
		}
		r, err := o.resolve(ref)
		if err != nil {
			return nil
		}
		v = r
	}
	return nil
}

const maxDepth = 64

// check validates v against schema and appends the violations to errs.
func (o *OpenAPI) check(schema any, v any, ptr string, errs *[]string, depth int) {
	if depth > maxDepth {
		*errs = append(*errs, where(ptr)+"schema nests too deeply (a $ref cycle?)")
		return
	}
	raw := schema
	s, ok := o.deref(schema).(map[string]any)
	if !ok {
		if b, isBool := raw.(bool); isBool && !b {
			*errs = append(*errs, where(ptr)+"no value is allowed here")
		}
		if m, isMap := raw.(map[string]any); isMap && m["$ref"] != nil {
			*errs = append(*errs, fmt.Sprintf("%sunresolvable $ref %v", where(ptr), m["$ref"]))
		}
		return
	}
	fail := func(format string, args ...any) {
		*errs = append(*errs, where(ptr)+fmt.Sprintf(format, args...))
	}

	if v == nil && s["nullable"] == true {
		return
	}

	for _, sub := range list(s["allOf"]) {
		o.check(sub, v, ptr, errs, depth+1)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		branches := list(s[key])
		if len(branches) == 0 {
			continue
		}
		matched := false
		var first []string
		for i, sub := range branches {
			var be []string
			o.check(sub, v, ptr, &be, depth+1)
			if len(be) == 0 {
				matched = true
				break
			}
			if i == 0 {
				first = be
			}
		}
		if !matched {
			fail("matches none of the %d %s branches (first: %s)", len(branches), key, strings.Join(first, ", "))
		}
	}

	if types := typeList(s["type"]); len(types) > 0 {
		if s["nullable"] == true {
			types = append(types, "null")
		}
		if !typeMatches(types, v) {
			fail("is %s, want %s", jsonType(v), strings.Join(types, " or "))
			return
		}
	}
	if enum, ok := s["enum"].([]any); ok && !inEnum(enum, v) {
		fail("%s is not one of %s", show(v), showList(enum))
	}
	if c, ok := s["const"]; ok && !jsonEqual(c, v) {
		fail("%s is not %s", show(v), show(c))
	}

	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, r := range list(s["required"]) {
			name, _ := r.(string)
			if _, ok := x[name]; !ok {
				fail("required property %q is missing", name)
			}
		}
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			child := ptr + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			if ps, ok := props[k]; ok {
				o.check(ps, x[k], child, errs, depth+1)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					fail("unknown property %q", k)
				}
			case map[string]any:
				o.check(ap, x[k], child, errs, depth+1)
			}
		}
	case []any:
		if n, ok := number(s["minItems"]); ok && float64(len(x)) < n {
			fail("has %d items, want at least %v", len(x), n)
		}
		if n, ok := number(s["maxItems"]); ok && float64(len(x)) > n {
			fail("has %d items, want at most %v", len(x), n)
		}
		if items, ok := s["items"]; ok {
			for i, e := range x {
				o.check(items, e, fmt.Sprintf("%s/%d", ptr, i), errs, depth+1)
			}
		}
	case string:
		l := float64(utf8.RuneCountInString(x))
		if n, ok := number(s["minLength"]); ok && l < n {
			fail("is %v characters long, want at least %v", l, n)
		}
		if n, ok := number(s["maxLength"]); ok && l > n {
			fail("is %v characters long, want at most %v", l, n)
		}
	case json.Number:
		f, _ := x.Float64()
		if n, ok := number(s["minimum"]); ok {
			if s["exclusiveMinimum"] == true && f <= n {
				fail("%v is not greater than %v", x, n)
			} else if f < n {
				fail("%v is less than minimum %v", x, n)
			}
		}
		if n, ok := number(s["maximum"]); ok {
			if s["exclusiveMaximum"] == true && f >= n {
				fail("%v is not less than %v", x, n)
			} else if f > n {
				fail("%v is greater than maximum %v", x, n)
			}
		}
		if n, ok := number(s["exclusiveMinimum"]); ok && f <= n {
			fail("%v is not greater than %v", x, n)
		}
		if n, ok := number(s["exclusiveMaximum"]); ok && f >= n {
			fail("%v is not less than %v", x, n)
		}
	}
}

func where(ptr string) string {
	if ptr == "" {
		return "body: "
	}
	return ptr + ": "
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func typeList(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func typeMatches(types []string, v any) bool {
	for _, t := range types {
		switch t {
		case "null":
			if v == nil {
				return true
			}
		case "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		case "string":
			if _, ok := v.(string); ok {
				return true
			}
		case "object":
			if _, ok := v.(map[string]any); ok {
				return true
			}
		case "array":
			if _, ok := v.([]any); ok {
				return true
			}
		case "number":
			if _, ok := v.(json.Number); ok {
				return true
			}
		case "integer":
			if n, ok := v.(json.Number); ok {
				if _, err := n.Int64(); err == nil {
					return true
				}
				if f, err := n.Float64(); err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
					return true
				}
			}
		}
	}
	return false
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// number reads a numeric schema keyword, from JSON (json.Number) or YAML
// (int, float64).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		if jsonEqual(e, v) {
			return true
		}
	}
	return false
}

// jsonEqual compares a schema value (from JSON or YAML) with a decoded JSON
// value.
func jsonEqual(schemaVal, v any) bool {
	if a, ok := number(schemaVal); ok {
		b, ok := number(v)
		return ok && a == b
	}
	switch s := schemaVal.(type) {
	case nil:
		return v == nil
	case bool, string:
		return s == v
	}
	a, err1 := json.Marshal(schemaVal)
	b, err2 := json.Marshal(v)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

func showList(l []any) string {
	if len(l) > 8 {
		return show(l[:8]) + fmt.Sprintf(" (and %d more)", len(l)-8)
	}
	return show(l)
}
