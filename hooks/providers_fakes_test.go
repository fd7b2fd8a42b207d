package hooks_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/provider/providertest"
)

// firecrawlKey is a Firecrawl key in the cloud's form ("fc-" and a UUID),
// distinctive so that a leak is easy to spot.
const firecrawlKey = "fc-5e1d0c2b-PROC-4a7f-9b3e-0d6c8a2f4e1b"

// searxngAnswer is a SearXNG JSON answer (format=json) with two results
// inside the payload's allowed domains and one outside them.
const searxngAnswer = `{"query":"go context cancellation","number_of_results":0,
 "results":[
  {"url":"https://pkg.go.dev/context","title":"SearXNG: context package","content":"SEARXNG-RESULT-MARKER Package context defines the Context type.",
   "engine":"duckduckgo","engines":["duckduckgo","brave"],"positions":[1,1],"score":4.0,"category":"general","template":"default.html",
   "parsed_url":["https","pkg.go.dev","/context","","",""],"publishedDate":null,"pubdate":"","thumbnail":"","img_src":"","priority":""},
  {"url":"https://go.dev/blog/context","title":"SearXNG: Go blog","content":"Each request is handled in its own goroutine.",
   "engine":"brave","engines":["brave"],"positions":[2],"score":0.5,"category":"general","template":"default.html",
   "parsed_url":["https","go.dev","/blog/context","","",""],"publishedDate":"2025-03-04T00:00:00","pubdate":"2025-03-04 00:00:00","priority":""},
  {"url":"https://elsewhere.example/ctx","title":"SearXNG: elsewhere","content":"Outside the allowed domains.",
   "engine":"bing","engines":["bing"],"positions":[3],"score":0.3,"category":"general","template":"default.html",
   "parsed_url":["https","elsewhere.example","/ctx","","",""],"publishedDate":null}],
 "answers":[],"corrections":[],"infoboxes":[],"suggestions":["go context"],"unresponsive_engines":[["wikidata","timeout"]]}`

// searxngForbidden is the Werkzeug page an instance answers, with 403,
// when its settings do not list json under search.formats.
const searxngForbidden = `<!doctype html>
<html lang=en>
<title>403 Forbidden</title>
<h1>Forbidden</h1>
<p>You don't have the permission to access the requested resource. It is either read-protected or not readable by the server.</p>
`

// newSearXNG starts a fake SearXNG instance that answers every request
// with status and body.
func newSearXNG(t *testing.T, status int, body string) *providertest.Server {
	t.Helper()
	ctype := "application/json"
	if status == http.StatusForbidden {
		ctype = "text/html; charset=utf-8"
	}
	return providertest.NewServer(t, nil, func(int, providertest.Request) providertest.Answer {
		return providertest.Answer{Status: status, Header: http.Header{"Content-Type": {ctype}}, Body: body}
	})
}

// firecrawlScrape is a Firecrawl v2 /scrape answer for target, in the
// shape of the OpenAPI document's ScrapeResponse.
func firecrawlScrape(target string) string {
	return fmt.Sprintf(`{"success":true,"data":{
 "markdown":"# Rendered app\n\nThe app explains deadlines once its script has run.\n\nFIRECRAWL-SCRAPE-MARKER",
 "metadata":{"title":"Rendered app | Example","description":"An app that needs a browser.","language":"en",
  "sourceURL":%q,"url":%q,"statusCode":200,"contentType":"text/html; charset=utf-8",
  "scrapeId":"019285c1-7d0a-7a3e-9a61-3f2b9c1d4e5f","proxyUsed":"basic","cacheState":"miss","creditsUsed":1}}}`, target, target)
}

// firecrawlNoCredits is Firecrawl's 402 answer when the team is out of
// credits.
const firecrawlNoCredits = `{"success":false,"error":"Insufficient credits to perform this request. For more credits, you can upgrade your plan at https://firecrawl.dev/pricing or try changing the request limit to a lower value."}`

// firecrawlFake is a fake Firecrawl API (v2) that checks each /scrape
// request body against Firecrawl's OpenAPI document and answers with
// status 200 and a scrape of the requested URL, or with the status and
// body it is given.
type firecrawlFake struct {
	*providertest.Server
	// invalid collects the request bodies that the OpenAPI document
	// rejects, with the reason.
	invalid chan string
}

func newFirecrawl(t *testing.T, status int, body string) *firecrawlFake {
	t.Helper()
	spec, err := providertest.LoadOpenAPI(filepath.Join("..", "provider", "firecrawl", "testdata", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := &firecrawlFake{invalid: make(chan string, 16)}
	f.Server = providertest.NewServer(t, func(r *http.Request) string {
		return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}, func(_ int, req providertest.Request) providertest.Answer {
		if req.Method != http.MethodPost || req.Path != "/v2/scrape" {
			return providertest.Answer{Status: http.StatusNotFound, Body: `{"success":false,"error":"Not found"}`}
		}
		if err := spec.ValidateRequest("POST", "/scrape", req.Body); err != nil {
			f.invalid <- fmt.Sprintf("%v: %s", err, req.Body)
			return providertest.Answer{Status: http.StatusBadRequest, Body: `{"success":false,"error":"Bad Request","code":"BAD_REQUEST"}`}
		}
		if status != http.StatusOK {
			return providertest.Answer{Status: status, Body: body}
		}
		var sr struct {
			URL string `json:"url"`
		}
		_ = json.Unmarshal(req.Body, &sr)
		answer := firecrawlScrape(sr.URL)
		if err := spec.ValidateResponse("POST", "/scrape", http.StatusOK, []byte(answer)); err != nil {
			f.invalid <- "the fake's own answer: " + err.Error()
		}
		return providertest.Answer{Body: answer}
	})
	return f
}

// checkValid fails t for every request the OpenAPI document rejected.
func (f *firecrawlFake) checkValid(t *testing.T) {
	t.Helper()
	for {
		select {
		case msg := <-f.invalid:
			t.Errorf("request does not conform to Firecrawl's OpenAPI document: %s", msg)
		default:
			return
		}
	}
}

// jinaReaderAnswer is a Jina Reader JSON answer (Accept: application/json)
// for target.
func jinaReaderAnswer(target string) string {
	return fmt.Sprintf(`{"code":200,"status":20000,"data":{"title":"Rendered by Jina","description":"An app read by Jina Reader.",
 "url":%q,"content":"# Rendered by Jina\n\nDeadlines are set with WithTimeout.\n\nJINA-READER-MARKER",
 "publishedTime":"2025-03-04T09:00:00.000Z","usage":{"tokens":42}},"meta":{"usage":{"tokens":42}}}`, target)
}

// jinaTargetFailed is a Jina Reader answer for a target that answered 404:
// HTTP 200, with the target's error page as content and a warning.
func jinaTargetFailed(target string) string {
	return fmt.Sprintf(`{"code":200,"status":20000,"data":{"title":"404 Not Found","description":"",
 "url":%q,"content":"# Not Found\n\nJINA-ERROR-PAGE-MARKER The requested URL was not found on this server.",
 "warning":"Target URL returned error 404: Not Found","usage":{"tokens":17}},"meta":{"usage":{"tokens":17}}}`, target)
}

// newJinaReader starts a fake Jina Reader that answers POST / with
// answer(the requested URL).
func newJinaReader(t *testing.T, answer func(target string) string) *providertest.Server {
	t.Helper()
	return providertest.NewServer(t, nil, func(_ int, req providertest.Request) providertest.Answer {
		if req.Method != http.MethodPost || req.Path != "/" {
			return providertest.Answer{Status: http.StatusNotFound, Body: `{"data":null,"code":404,"name":"NotFoundError","status":40400,"message":"not found"}`}
		}
		var body struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(req.Body, &body) != nil || body.URL == "" {
			return providertest.Answer{Status: http.StatusBadRequest,
				Body: `{"data":null,"code":400,"name":"ParamValidationError","status":40001,"message":"No URL provided","readableMessage":"ParamValidationError: No URL provided"}`}
		}
		return providertest.Answer{Body: answer(body.URL)}
	})
}

// keylessEnv returns the environment of a hook process with no key and
// no configuration file, plus extra.
func keylessEnv(t *testing.T, extra ...string) []string {
	env := []string{
		"HOME=" + t.TempDir(),
		"PATH=/usr/bin:/bin",
		// The local browser has tests of its own (webpage/browser).
		"WEBGATE_BROWSER=off",
	}
	return append(env, extra...)
}

// wantNoSecret fails t when key appears in the run's output.
func wantNoSecret(t *testing.T, r result, key string) {
	t.Helper()
	if strings.Contains(r.stdout, key) || strings.Contains(r.stderr, key) {
		t.Errorf("the key appears in the output:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
}
