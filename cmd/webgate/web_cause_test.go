package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/fakeweb"
)

func TestFetch_ALoopbackRefusalSaysHowToAllowIt(t *testing.T) {
	pages := fakeweb.Pages(t)
	code, _, errOut := fetchCLI(t, withoutPrivateAddresses(webEnv(t, &fakeweb.Tavily{})), pages+"/readable/docs-page.html")
	if code != exitUsage || !strings.Contains(errOut, "is a loopback address") || !strings.Contains(errOut, "Set hooks.webfetch.allow_private = true (WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1) to read it.") {
		t.Fatalf("code %d, stderr %q; want the refusal and the setting that lifts it", code, errOut)
	}
	// No setting lifts a metadata endpoint: no hint.
	_, _, errOut = fetchCLI(t, webEnv(t, &fakeweb.Tavily{}), "http://169.254.169.254/latest/meta-data/")
	if !strings.Contains(errOut, "cloud metadata endpoint") || strings.Contains(errOut, "allow_private") {
		t.Errorf("stderr %q", errOut)
	}
}

func TestSearch_AFailedProviderSaysWhy(t *testing.T) {
	closed := "http://" + fakeweb.RefusedAddr(t)
	env := webEnv(t, &fakeweb.Tavily{}, "TAVILY_BASE_URL="+closed)
	code, _, errOut := searchCLI(t, env, "go context")
	if code != exitProvider || !strings.Contains(errOut, "tavily (transient-provider-failed: connection refused)") {
		t.Fatalf("code %d, stderr %q; want the refused connection named", code, errOut)
	}
	code, out, _ := searchCLI(t, env, "--json", "go context")
	if code != exitProvider || !strings.Contains(out, `"cause": "connection refused"`) && !strings.Contains(out, `"cause":"connection refused"`) {
		t.Errorf("--json: code %d, %s; want the cause in failed_providers", code, out)
	}
}

func TestFetch_AOnePagePDFIsOnePage(t *testing.T) {
	pdf, err := os.ReadFile("../../webpage/pdf/testdata/crazyones-pdfa.pdf")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write(pdf)
	}))
	t.Cleanup(srv.Close)
	code, out, errOut := fetchCLI(t, webEnv(t, &fakeweb.Tavily{}), srv.URL+"/one.pdf")
	if code != exitOK || !strings.Contains(out, "A PDF document of 1 page, read locally") {
		t.Fatalf("code %d, stderr %q, stdout:\n%s\nwant the note to say 1 page", code, errOut, out)
	}
}
