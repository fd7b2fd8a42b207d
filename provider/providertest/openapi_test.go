package providertest_test

import (
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/provider/providertest"
)

func load(t *testing.T, path string) *providertest.OpenAPI {
	t.Helper()
	o, err := providertest.LoadOpenAPI(path)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

type bodyCase struct {
	name, body string
	// wantErr is a substring of the expected error; empty means valid.
	wantErr string
}

func checkBodies(t *testing.T, validate func([]byte) error, cases []bodyCase) {
	t.Helper()
	for _, tc := range cases {
		err := validate([]byte(tc.body))
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v, want valid", tc.name, err)
		case tc.wantErr != "" && err == nil:
			t.Errorf("%s: valid, want an error containing %q", tc.name, tc.wantErr)
		case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
			t.Errorf("%s: error %q does not contain %q", tc.name, err, tc.wantErr)
		}
	}
}

func TestOpenAPI_ChecksTavilySearchRequests(t *testing.T) {
	o := load(t, "../tavily/testdata/openapi.json")
	checkBodies(t, o.RequestValidator("POST", "/search"), []bodyCase{
		{"a minimal request", `{"query":"q"}`, ""},
		{"every common field", `{"query":"q","search_depth":"advanced","max_results":20,"topic":"news","time_range":"week",
		  "include_domains":["a.com"],"exclude_domains":[],"country":"united states","include_answer":"basic","include_raw_content":true,"chunks_per_source":3}`, ""},
		{"an unknown field (additionalProperties not false)", `{"query":"q","future_field":1}`, ""},
		{"a missing query", `{"max_results":5}`, `required property "query" is missing`},
		{"max_results above the maximum", `{"query":"q","max_results":25}`, "/max_results: 25 is greater than maximum 20"},
		{"max_results below the minimum", `{"query":"q","max_results":-1}`, "less than minimum 0"},
		{"max_results as a string", `{"query":"q","max_results":"5"}`, "/max_results: is string, want integer"},
		{"max_results as a fraction", `{"query":"q","max_results":2.5}`, "want integer"},
		{"max_results as a whole float", `{"query":"q","max_results":5.0}`, ""},
		{"a search depth outside the enum", `{"query":"q","search_depth":"deep"}`, `"deep" is not one of`},
		{"a country name Tavily does not list", `{"query":"q","country":"us"}`, `/country: "us" is not one of`},
		{"include_answer as a boolean", `{"query":"q","include_answer":false}`, ""},
		{"include_answer as a bad string", `{"query":"q","include_answer":"yes"}`, "matches none of the 2 oneOf branches"},
		{"domains that are not strings", `{"query":"q","include_domains":[1]}`, "/include_domains/0: is integer, want string"},
		{"a body that is not JSON", `query=q`, "body is not JSON"},
		{"two JSON values", `{"query":"q"} {}`, "data after the JSON value"},
		{"an array body", `[]`, "is array, want object"},
	})
}

func TestOpenAPI_ChecksTavilyExtractRequests(t *testing.T) {
	o := load(t, "../tavily/testdata/openapi.json")
	checkBodies(t, o.RequestValidator("POST", "/extract"), []bodyCase{
		{"urls as a list", `{"urls":["https://a.example"],"format":"markdown","extract_depth":"basic"}`, ""},
		{"urls as a string", `{"urls":"https://a.example"}`, ""},
		{"urls as a number", `{"urls":7}`, "oneOf"},
		{"a timeout below the minimum", `{"urls":["u"],"timeout":0.5}`, "/timeout: 0.5 is less than minimum 1"},
		{"chunks above the maximum", `{"urls":["u"],"query":"x","chunks_per_source":6}`, "greater than maximum 5"},
		{"an unknown format", `{"urls":["u"],"format":"html"}`, `"html" is not one of`},
	})
}

func TestOpenAPI_ChecksTavilyResponses(t *testing.T) {
	o := load(t, "../tavily/testdata/openapi.json")
	validate := func(body []byte) error { return o.ValidateResponse("POST", "/search", 200, body) }
	checkBodies(t, validate, []bodyCase{
		{"a response as the spec writes it", `{"query":"q","answer":"a","images":[],"response_time":1.5,
		  "results":[{"title":"t","url":"https://a.example","content":"c","score":0.9,"raw_content":"r"}],"request_id":"r"}`, ""},
		{"a response without the required fields", `{"results":[]}`, `required property "answer"`},
		// The real service sends these although the spec does not allow
		// them; the backend's fixtures include them on purpose.
		{"a null raw_content", `{"query":"q","answer":"a","images":[],"response_time":1,"results":[{"raw_content":null}]}`, "/results/0/raw_content: is null"},
		{"response_time as a string", `{"query":"q","answer":"a","images":[],"response_time":"1.67","results":[]}`, "/response_time: is string"},
	})
}

func TestOpenAPI_ChecksExaRequestsFromYAML(t *testing.T) {
	o := load(t, "../exa/testdata/openapi.yaml")
	checkBodies(t, o.RequestValidator("POST", "/search"), []bodyCase{
		{"a search with contents", `{"query":"q","type":"auto","numResults":10,"includeDomains":["arxiv.org"],
		  "contents":{"text":{"maxCharacters":1000},"highlights":{"query":"k"},"livecrawl":"fallback"}}`, ""},
		{"numResults above the maximum (from a $ref in allOf)", `{"query":"q","numResults":101}`, "/numResults: 101 is greater than maximum 100"},
		{"an unknown type", `{"query":"q","type":"bogus"}`, `/type: "bogus" is not one of`},
		{"contents with a bad livecrawl (nested $ref)", `{"query":"q","contents":{"livecrawl":"sometimes"}}`, "/contents/livecrawl"},
		{"a missing query", `{"numResults":3}`, `required property "query"`},
	})
	checkBodies(t, o.RequestValidator("POST", "/contents"), []bodyCase{
		{"urls with text options", `{"urls":["https://a.example"],"text":{"maxCharacters":500}}`, ""},
		{"urls missing", `{"text":true}`, `required property "urls"`},
		{"text of the wrong type", `{"urls":["u"],"text":"yes"}`, "/text"},
	})
}

const inlineSpec = `
openapi: 3.1.0
paths:
  /items/{id}:
    put:
      requestBody:
        $ref: "#/components/requestBodies/Item"
      responses:
        "2XX":
          content:
            application/json:
              schema: {type: object, required: [ok]}
components:
  requestBodies:
    Item:
      content:
        application/json:
          schema:
            $ref: "#/components/schemas/Item"
  schemas:
    Item:
      type: object
      additionalProperties: false
      required: [name]
      properties:
        name: {type: string, minLength: 1, maxLength: 5}
        note: {type: [string, "null"]}
        legacy: {type: string, nullable: true}
        size: {type: number, exclusiveMinimum: 0}
        tags: {type: array, minItems: 1, maxItems: 2, items: {type: string}}
        kind: {const: fixed}
        meta: {type: object, additionalProperties: {type: integer}}
`

func TestOpenAPI_SupportsTheSchemaSubset(t *testing.T) {
	o, err := providertest.ParseOpenAPI([]byte(inlineSpec))
	if err != nil {
		t.Fatal(err)
	}
	checkBodies(t, o.RequestValidator("PUT", "/items/42"), []bodyCase{
		{"a valid item", `{"name":"a","note":null,"legacy":null,"size":1.5,"tags":["x"],"kind":"fixed","meta":{"n":1}}`, ""},
		{"an unknown property", `{"name":"a","colour":"red"}`, `unknown property "colour"`},
		{"a name too long", `{"name":"abcdef"}`, "want at most 5"},
		{"an empty name", `{"name":""}`, "want at least 1"},
		{"a size at the exclusive minimum", `{"name":"a","size":0}`, "is not greater than 0"},
		{"too many tags", `{"name":"a","tags":["a","b","c"]}`, "want at most 2"},
		{"no tags", `{"name":"a","tags":[]}`, "want at least 1"},
		{"a wrong const", `{"name":"a","kind":"other"}`, `"other" is not "fixed"`},
		{"additional properties of the wrong type", `{"name":"a","meta":{"n":"one"}}`, "/meta/n: is string, want integer"},
		{"null where the type forbids it", `{"name":null}`, "/name: is null, want string"},
	})
	if err := o.ValidateResponse("PUT", "/items/1", 201, []byte(`{"ok":true}`)); err != nil {
		t.Errorf("a 2XX response: %v", err)
	}
	if err := o.ValidateRequest("PUT", "/items", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "not in the spec") {
		t.Errorf("an unknown path: %v", err)
	}
	if err := o.ValidateRequest("GET", "/items/1", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "not in the spec") {
		t.Errorf("an unknown method: %v", err)
	}
	if err := o.Validate("#/components/schemas/Item", []byte(`{"name":"ok"}`)); err != nil {
		t.Errorf("Validate by reference: %v", err)
	}
}

func TestLoadOpenAPI_ReportsUnreadableAndInvalidFiles(t *testing.T) {
	if _, err := providertest.LoadOpenAPI("testdata/does-not-exist.json"); err == nil {
		t.Error("loading a missing file succeeded")
	}
	for _, doc := range []string{`{"openapi":"3.0.0"}`, `- a list`, `{broken`} {
		if _, err := providertest.ParseOpenAPI([]byte(doc)); err == nil {
			t.Errorf("ParseOpenAPI(%q) succeeded", doc)
		}
	}
}
