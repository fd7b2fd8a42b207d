package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestSecrets_ListsEveryProvidersKeys(t *testing.T) {
	cfg, err := load(t, t.TempDir(), "TAVILY_API_KEY=tv-one|tv-two", "EXA_API_KEY=exa-one")
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Secrets()
	slices.Sort(got)
	if strings.Join(got, ",") != "exa-one,tv-one,tv-two" {
		t.Fatalf("Secrets() = %v", got)
	}
	if len(Default().Secrets()) != 0 {
		t.Fatal("the default configuration has secrets")
	}
}

func TestProblems_RendersOneLinePerProblem(t *testing.T) {
	_, err := load(t, t.TempDir(), "WEBGATE_SEARCH_MODE=sideways", "WEBGATE_SEARCH_TIMEOUT=-3s")
	lines := Problems(err)
	if len(lines) != 2 || !strings.Contains(lines[0]+lines[1], "search.mode") || strings.Contains(strings.Join(lines, ""), "sideways") {
		t.Fatalf("Problems = %q", lines)
	}
	if Problems(nil) != nil {
		t.Fatal("nil error has problems")
	}
	if got := Problems(errors.New("boom")); len(got) != 1 || got[0] != "boom" {
		t.Fatalf("plain error: %q", got)
	}
}
