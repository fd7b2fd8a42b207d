package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/fakeweb"
)

func TestRun_UnknownCommandSuggestsTheNearestOne(t *testing.T) {
	code, _, errOut := runCLI(t, "", "serch", "go")
	if code != exitUsage || !strings.Contains(errOut, `unknown command "serch" (did you mean search?)`) {
		t.Errorf("code %d, stderr %q", code, errOut)
	}
	if _, _, errOut := runCLI(t, "", "zzzzzz"); strings.Contains(errOut, "did you mean") {
		t.Errorf("a suggestion for a word like no command: %q", errOut)
	}
}

func TestRun_ABadFlagGetsAShortUsageNotTheWholeHelp(t *testing.T) {
	for _, args := range [][]string{{"search", "--provder", "tavily", "q"}, {"install", "--targt", "x"}, {"stats", "--jsn"}} {
		code, out, errOut := runCLI(t, "", args...)
		if code != exitUsage || out != "" {
			t.Errorf("%v: code %d, stdout %q", args, code, out)
		}
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if len(lines) > 3 || !strings.Contains(errOut, "did you mean --") || !strings.Contains(errOut, "--help' for the flags and examples") {
			t.Errorf("%v: stderr is not a short usage with a suggestion:\n%s", args, errOut)
		}
	}
}

func TestRun_HelpShowsFlagsWithTwoDashes(t *testing.T) {
	for _, name := range []string{"search", "install", "stats"} {
		_, out, _ := runCLI(t, "", name, "--help")
		if !strings.Contains(out, "\n  --") {
			t.Errorf("%s --help lists no --flag:\n%s", name, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  -") && !strings.HasPrefix(l, "  --") && len(strings.Fields(l)[0]) > 2 {
				t.Errorf("%s --help: long flag with one dash: %q", name, l)
			}
		}
	}
}

func TestCompletion_BashCompletesCommandsAndTheirFlags(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	code, script, errOut := runCLI(t, "", "completion", "bash")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, errOut)
	}
	path := filepath.Join(t.TempDir(), "webgate.bash")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	complete := func(words ...string) string {
		t.Helper()
		cmd := exec.Command(bash, "--norc", "-c", `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($#-1)); _webgate; echo "${COMPREPLY[@]}"`, "sh", path)
		cmd.Args = append(cmd.Args, words...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	if got := complete("webgate", "sea"); got != "search" {
		t.Errorf("webgate sea<TAB> = %q", got)
	}
	if got := complete("webgate", "search", "--pro"); got != "--provider" {
		t.Errorf("webgate search --pro<TAB> = %q", got)
	}
	if got := complete("webgate", "install", "--tar"); got != "--target" {
		t.Errorf("webgate install --tar<TAB> = %q", got)
	}
	// A flag's value, not the flags (whose common prefix "--" the shell
	// would insert).
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"webgate", "install", "--target", ""}, "claude-code copilot-cli copilot-vscode gemini-cli codex all"},
		{[]string{"webgate", "install", "--target", "co"}, "copilot-cli copilot-vscode codex"},
		{[]string{"webgate", "uninstall", "--scope", ""}, "user project"},
		{[]string{"webgate", "setup", "--target", "g"}, "gemini-cli"},
		{[]string{"webgate", "search", "--mode", ""}, "parallel fallback single"},
		{[]string{"webgate", "search", "--provider", "tav"}, "tavily"},
		// A value the completion does not know: the shell's own (files).
		{[]string{"webgate", "install", "--bin-dir", ""}, ""},
		{[]string{"webgate", "log", "-n", ""}, ""},
		// Subcommands, and flags once a dash is typed.
		{[]string{"webgate", "cache", ""}, "clear"},
		{[]string{"webgate", "cache", "--c"}, "--config"},
		{[]string{"webgate", "routes", ""}, "test list"},
		{[]string{"webgate", "token", ""}, "create list revoke"},
		{[]string{"webgate", "audit", ""}, "verify"},
		{[]string{"webgate", "completion", ""}, "bash zsh fish"},
	} {
		if got := complete(tc.words...); got != tc.want {
			t.Errorf("%q<TAB> = %q, want %q", tc.words, got, tc.want)
		}
	}
}

func TestCompletion_ZshAndFish(t *testing.T) {
	_, zsh, _ := runCLI(t, "", "completion", "zsh")
	if !strings.HasPrefix(zsh, "#compdef webgate") || !strings.Contains(zsh, "complete -o default -F _webgate webgate") {
		t.Errorf("zsh script:\n%s", zsh)
	}
	_, fish, _ := runCLI(t, "", "completion", "fish")
	for _, want := range []string{
		"complete -c webgate -n '__fish_use_subcommand' -a search",
		"complete -c webgate -n '__fish_seen_subcommand_from search' -l provider -x -a 'tavily",
		"complete -c webgate -n '__fish_seen_subcommand_from install' -l target -x -a 'claude-code copilot-cli copilot-vscode gemini-cli codex all'",
		"complete -c webgate -n '__fish_seen_subcommand_from install' -l bin-dir -r -F",
		"complete -c webgate -n '__fish_seen_subcommand_from install' -l dry-run\n",
		"complete -c webgate -n '__fish_seen_subcommand_from cache' -a 'clear'",
		"complete -c webgate -n '__fish_seen_subcommand_from log' -s n -r -F",
	} {
		if !strings.Contains(fish, want) {
			t.Errorf("fish script lacks %q", want)
		}
	}
	if code, _, errOut := runCLI(t, "", "completion", "bsh"); code != exitUsage || !strings.Contains(errOut, "did you mean bash?") {
		t.Errorf("completion bsh: %d %q", code, errOut)
	}
}

func TestSearch_PeopleSeeWhichProviderFoundEachResultAndNoAgentReminder(t *testing.T) {
	code, out, errOut := searchCLI(t, webEnv(t, &fakeweb.Tavily{Hits: webHits}), "golang context")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, errOut)
	}
	if !strings.Contains(out, "found by tavily") {
		t.Errorf("no provenance per result:\n%s", out)
	}
	if strings.Contains(out, "Cite the sources") {
		t.Errorf("the agent's reminder reached a person:\n%s", out)
	}
}

func TestFetch_OutputFileTakesThePageAndQuietKeepsOnlyErrors(t *testing.T) {
	pages := fakeweb.Pages(t)
	env := webEnv(t, &fakeweb.Tavily{}, "WEBGATE_SEARCH_MODE=nonsense")
	file := filepath.Join(t.TempDir(), "page.md")
	code, out, errOut := fetchCLI(t, env, "-o", file, pages+"/readable/blog-article.html")
	if code != exitOK || out != "" {
		t.Fatalf("code %d, stdout %q, stderr %s", code, out, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), "## What the town decided") {
		t.Fatalf("file: %v\n%s", err, data)
	}
	if !strings.Contains(errOut, "warning:") || !strings.Contains(errOut, "wrote "+file) {
		t.Errorf("stderr without --quiet:\n%s", errOut)
	}
	code, _, errOut = fetchCLI(t, env, "--quiet", "-o", file, pages+"/readable/blog-article.html")
	if code != exitOK || errOut != "" {
		t.Errorf("--quiet: code %d, stderr %q", code, errOut)
	}
	code, _, errOut = fetchCLI(t, env, "--quiet", pages+"/missing-page")
	if code == exitOK || errOut == "" {
		t.Errorf("--quiet hid an error: code %d, stderr %q", code, errOut)
	}
}

func TestHelp_SaysEachFlagsDefaultOnce(t *testing.T) {
	for _, c := range commands() {
		_, out, _ := runCLI(t, "", c.name, "--help")
		for _, l := range strings.Split(out, "\n") {
			if strings.Count(l, "default") > 1 && strings.Count(l, "(default") > 0 || strings.Contains(l, "(default 0s)") {
				t.Errorf("webgate %s --help: %q says its default twice, or a zero one", c.name, l)
			}
		}
	}
	_, out, _ := runCLI(t, "", "search", "--help")
	if !strings.Contains(out, "give up after DURATION (default 25s)\n") {
		t.Errorf("search --help lost the timeout's default:\n%s", out)
	}
}
