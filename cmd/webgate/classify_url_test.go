package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// pageServer serves the fixture pages on 127.0.0.1 and counts requests.
func pageServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/blog":
			b, _ := os.ReadFile("../../fixtures/readable/blog-article.html")
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(b)
		case "/app":
			b, _ := os.ReadFile("../../fixtures/browser-render-required/angular-app-root.html")
			w.Header().Set("Content-Type", "text/html")
			w.Write(b)
		case "/doc.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write([]byte("%PDF-1.4\n"))
		default:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte("<html><body>\x1b[31mNot found</body></html>"))
		}
	}))
	t.Cleanup(s.Close)
	return s, &hits
}

func TestClassify_ReadsAURLThroughThePageProbe(t *testing.T) {
	h := newTestHost(t)
	h.env["WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE"] = "true"
	s, _ := pageServer(t)
	code, out, errOut := h.run("", "classify", s.URL+"/blog", s.URL+"/app")
	if code != exitOK {
		t.Fatalf("code %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{`(?m)^` + regexp.QuoteMeta(s.URL) + `/blog\tfetch-readable\t[01]\.\d\d$`, `(?m)^` + regexp.QuoteMeta(s.URL) + `/app\tbrowser-render-required\t`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("stdout lacks %s:\n%s", want, out)
		}
	}

	code, out, errOut = h.run("", "classify", s.URL+"/doc.pdf", s.URL+"/gone", s.URL+"/blog")
	if code != exitFail || !strings.Contains(out, "/blog\tfetch-readable") {
		t.Fatalf("code %d, stdout %q: want 1 with the readable page still printed", code, out)
	}
	for _, want := range []string{"/doc.pdf: not an HTML page (application/pdf)", "/gone: answered HTTP 404 Not Found; there is no page to classify"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

func TestClassify_RefusesALoopbackURLWithoutAllowPrivate(t *testing.T) {
	h := newTestHost(t)
	s, hits := pageServer(t)
	code, out, errOut := h.run("", "classify", s.URL+"/blog")
	if code != exitFail || out != "" || !strings.Contains(errOut, "refusing to read") || !strings.Contains(errOut, "loopback") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	// It names the setting that lets it read the page, as fetch does.
	if !strings.Contains(errOut, "hooks.webfetch.allow_private = true") {
		t.Errorf("stderr does not name the setting:\n%s", errOut)
	}
	if hits.Load() != 0 {
		t.Errorf("the server was reached %d times", hits.Load())
	}
}

func TestClassify_APDFFileIsNotJudgedAsAnHTMLPage(t *testing.T) {
	pdf, err := os.ReadFile("../../webpage/pdf/testdata/crazyones-pdfa.pdf")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := dir + "/doc.pdf"
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", "classify", path, "../../fixtures/readable/blog-article.html")
	if code != exitFail || strings.Contains(out, "doc.pdf") || !strings.Contains(errOut, "doc.pdf: not an HTML page (application/pdf)") {
		t.Errorf("code %d, stdout %q, stderr %q; want the PDF refused as a URL would be", code, out, errOut)
	}
	if !strings.Contains(out, "blog-article.html\tfetch-readable") {
		t.Errorf("the HTML page beside it was not classified: %q", out)
	}
	code, out, errOut = runCLI(t, string(pdf), "classify", "-")
	if code != exitFail || out != "" || !strings.Contains(errOut, "standard input: not an HTML page (application/pdf)") {
		t.Errorf("stdin: code %d, stdout %q, stderr %q", code, out, errOut)
	}
}
