package main

import (
	"strings"
	"testing"
)

func TestSearch_ANamedProviderWithoutAKeySaysSoAndNamesItsVariable(t *testing.T) {
	for _, keys := range []bool{true, false} {
		h := newTestHost(t)
		if keys {
			h.withKey()
		}
		checkNamedProviderWithoutKey(t, h)
	}
}

func checkNamedProviderWithoutKey(t *testing.T, h *testHost) {
	t.Helper()
	code, out, errOut := h.run("", "search", "--provider", "exa", "golang")
	if code == exitOK || out != "" {
		t.Fatalf("code %d, stdout %q", code, out)
	}
	if !strings.Contains(errOut, "exa has no API key: set EXA_API_KEY") {
		t.Errorf("stderr does not say that exa has no key: %q", errOut)
	}
	for _, unrelated := range []string{"TAVILY_API_KEY", "WEBSEARCHAPI_API_KEY", "No web search provider"} {
		if strings.Contains(errOut, unrelated) {
			t.Errorf("stderr mentions %q: %q", unrelated, errOut)
		}
	}
}
