package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/buildinfo"
)

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRun_NoArgumentsPrintsUsageAndFails(t *testing.T) {
	code, _, errOut := runCLI(t, "")
	if code != exitUsage || !strings.Contains(errOut, "Commands:") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

func TestRun_HelpListsEveryCommand(t *testing.T) {
	for _, arg := range []string{"help", "--help", "-h"} {
		code, out, _ := runCLI(t, "", arg)
		if code != exitOK {
			t.Fatalf("%s: code %d", arg, code)
		}
		for _, c := range commands() {
			if !strings.Contains(out, c.name) || !strings.Contains(out, c.summary) {
				t.Errorf("%s: help lacks %s", arg, c.name)
			}
		}
	}
}

func TestRun_VersionPrintsVersion(t *testing.T) {
	code, out, _ := runCLI(t, "", "--version")
	if code != exitOK || out != "webgate "+buildinfo.Version()+"\n" || !strings.HasPrefix(out, "webgate v") {
		t.Fatalf("code %d, out %q", code, out)
	}
}

func TestRun_UnknownCommandFailsWithMessage(t *testing.T) {
	code, _, errOut := runCLI(t, "", "frobnicate")
	if code != exitUsage || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

func TestRun_CommandNamesAreUniqueAndDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands() {
		if seen[c.name] || c.summary == "" || c.run == nil {
			t.Errorf("command %q duplicated or incomplete", c.name)
		}
		seen[c.name] = true
	}
}

func TestRun_HelpForCommandShowsFlagsAndExamplesOnStdout(t *testing.T) {
	for _, args := range [][]string{{"help", "classify"}, {"classify", "--help"}, {"classify", "x.html", "-h"}} {
		code, out, errOut := runCLI(t, "", args...)
		if code != exitOK || !strings.Contains(out, "Examples:") || !strings.Contains(out, "-corpus") || errOut != "" {
			t.Fatalf("%v: code %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

func TestRun_EveryCommandPrintsItsHelpWithExamplesOnStdout(t *testing.T) {
	for _, c := range commands() {
		if c.name == "help" {
			continue
		}
		code, out, errOut := runCLI(t, "", c.name, "--help")
		if code != exitOK || !strings.Contains(out, "Usage: webgate "+c.name) || !strings.Contains(out, "Examples:") || errOut != "" {
			t.Errorf("%s --help: code %d, stdout %q, stderr %q", c.name, code, out, errOut)
		}
	}
}

func fixture(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "fixtures"}, parts...)...)
}

func TestClassify_PrintsOneTabSeparatedLinePerFile(t *testing.T) {
	a := fixture("readable", "blog-article.html")
	b := fixture("browser-render-required", "react-cra-empty-root.html")
	code, out, errOut := runCLI(t, "", "classify", a, b)
	if code != exitOK || errOut != "" {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", out)
	}
	want := []string{"fetch-readable", "browser-render-required"}
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 3 || f[1] != want[i] || len(f[2]) != 4 || f[2][1] != '.' {
			t.Errorf("line %q: want FILE<TAB>%s<TAB>0.00", l, want[i])
		}
	}
}

func TestClassify_VerbosePrintsIndentedSignals(t *testing.T) {
	code, out, _ := runCLI(t, "", "classify", fixture("template-heavy", "news-homepage.html"), "-v")
	if code != exitOK || !strings.Contains(out, "\n    body_words=") || !strings.Contains(out, "\n    title: The Harbour Gazette") {
		t.Fatalf("code %d, out %q", code, out)
	}
}

func TestClassify_DashReadsStandardInput(t *testing.T) {
	code, out, _ := runCLI(t, `<html><body><div id="app"></div><script src="/app.js"></script></body></html>`, "classify", "-")
	if code != exitOK || !strings.HasPrefix(out, "-\tbrowser-render-required\t") {
		t.Fatalf("code %d, out %q", code, out)
	}
}

func TestClassify_UnreadableFileFailsAfterPrintingTheOthers(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.html")
	good := fixture("template-heavy", "forum-index.html")
	code, out, errOut := runCLI(t, "", "classify", missing, good)
	if code != exitFail {
		t.Fatalf("code %d, want %d", code, exitFail)
	}
	if !strings.Contains(out, good+"\ttemplate-heavy\t") {
		t.Errorf("good file not printed: %q", out)
	}
	if !strings.Contains(errOut, missing) || !strings.Contains(errOut, "no such file") {
		t.Errorf("stderr %q lacks a clear message", errOut)
	}
}

func TestClassify_NoFilesIsAUsageError(t *testing.T) {
	code, _, errOut := runCLI(t, "", "classify")
	if code != exitUsage || !strings.Contains(errOut, "no files given") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

func TestClassify_BadFlagIsAUsageError(t *testing.T) {
	code, _, errOut := runCLI(t, "", "classify", "--nope")
	if code != exitUsage || !strings.Contains(errOut, "nope") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

func TestClassify_CorpusPrintsAccuracyAndConfusionMatrix(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shell := `<html><body><div id="root"></div><script src="/main.js"></script></body></html>`
	write("pages/a.html", shell)
	write("pages/b.html", shell)
	write("labels.tsv", "file\tclass\npages/a.html\tbrowser-render-required\npages/b.html\treadable\n")
	code, out, errOut := runCLI(t, "", "classify", "--corpus", dir, "-v")
	if code != exitOK {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"browser-render-required  1      1        100.0%", "fetch-readable           1      0        0.0%", "overall", "expected \\ decided", "misclassified (1)", "pages/b.html"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestClassify_CorpusWithoutLabelsFails(t *testing.T) {
	code, _, errOut := runCLI(t, "", "classify", "--corpus", t.TempDir())
	if code != exitFail || !strings.Contains(errOut, "labels.tsv") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}
