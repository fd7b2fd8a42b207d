package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestDoctor_ReportsTheLocalBrowserAndPdftotextWithTheirVersions(t *testing.T) {
	h := newTestHost(t).withKey().register()
	h.env["WEBGATE_BROWSER"] = h.write("tools/chromium", "#!/bin/sh\necho 'Chromium 140.0.7339.0'\n")
	h.env["WEBGATE_FETCH_PDFTOTEXT"] = h.write("tools/pdftotext", "#!/bin/sh\necho 'pdftotext version 24.02.0' >&2\nexit 0\n")
	chmodX(t, h.env["WEBGATE_BROWSER"], h.env["WEBGATE_FETCH_PDFTOTEXT"])
	_, out, _ := h.run("", "doctor")
	line(t, out, `^Local reading \(no key needed\)$`)
	line(t, out, `^  OK\s+browser\s+\S+/tools/chromium, Chromium 140\.0\.7339\.0: app shells are rendered locally$`)
	line(t, out, `^  OK\s+pdftotext\s+\S+/tools/pdftotext, pdftotext version 24\.02\.0: PDFs are read with it$`)
}

func TestDoctor_SaysWhenTheLocalBrowserOrPdftotextIsMissing(t *testing.T) {
	h := newTestHost(t).withKey().register()
	h.env["WEBGATE_BROWSER"] = filepath.Join(h.dir, "no-such-browser")
	h.env["WEBGATE_FETCH_PDFTOTEXT"] = filepath.Join(h.dir, "no-such-pdftotext")
	_, out, _ := h.run("", "doctor")
	line(t, out, `^  WARN\s+browser\s+not found \(fetch\.browser ".*no-such-browser", env WEBGATE_BROWSER\): .*pages that need a browser go to the extraction providers, or to the native tool$`)
	line(t, out, `→ install chromium-headless-shell or Chromium, or set fetch\.browser \(WEBGATE_BROWSER\) to its path$`)
	line(t, out, `^  INFO\s+pdftotext\s+\S+no-such-pdftotext not found: PDFs are read by the built-in reader`)

	h.env["WEBGATE_BROWSER"] = "off"
	h.env["WEBGATE_FETCH_PDFTOTEXT"] = "off"
	_, out, _ = h.run("", "doctor")
	line(t, out, `^  INFO\s+browser\s+off \(fetch\.browser, env WEBGATE_BROWSER\)`)
	line(t, out, `^  INFO\s+pdftotext\s+off \(fetch\.pdftotext\): PDFs are read by the built-in reader$`)
}

func TestDoctor_SaysHowReplaceAnswersReachTheModelUnderTheUsersRules(t *testing.T) {
	h := newTestHost(t).withKey().register()
	h.env["WEBGATE_HOOKS_ANSWER"] = "replace"
	_, out, _ := h.run("", "doctor")
	line(t, out, `^  INFO\s+style\s+replace \(hooks\.answer replace, env WEBGATE_HOOKS_ANSWER\): the hooks allow the native tool and replace its output$`)
	line(t, out, `^  OK\s+WebSearch\s+no deny or ask rule stops it: the hook allows the native WebSearch \(no allow rule needed, in claude -p too\)`)

	h.write(filepath.Join(h.proj, ".claude", "settings.local.json"), `{"permissions":{"ask":["WebSearch"],"deny":["WebFetch(domain:internal.example)"]}}`)
	_, out, _ = h.run("", "doctor")
	line(t, out, `^  INFO\s+WebSearch\s+the ask rule "WebSearch" in \S+settings\.local\.json stops the native WebSearch, which a hook cannot allow: the hook falls back to the deny answer`)
	// A domain's deny rule: the fetch hook steps aside for its pages.
	line(t, out, `^  INFO\s+WebFetch\s+the deny rule "WebFetch\(domain:internal\.example\)" in \S+: webgate does not read the pages it names and steps aside, and Claude Code refuses them by that rule; other pages are answered as replace says$`)

	// A settings file that cannot be read may hold such a rule.
	h.write(filepath.Join(h.proj, ".claude", "settings.local.json"), `{"permissions":{"ask":["WebSearch"]`)
	_, out, _ = h.run("", "doctor")
	line(t, out, `^  WARN\s+WebSearch\s+\S+settings\.local\.json, which could not be read \(.*\) and may hold a deny or ask rule: the hook counts it as a rule that stops the native WebSearch and falls back to the deny answer`)
	line(t, out, `→ fix or shrink \S+settings\.local\.json so that its permission rules can be read$`)

	// A bare deny rule takes the tool away: no hook runs at all.
	settings := readFile(t, h.userSettings())
	h.write(h.userSettings(), settings[:len(settings)-2]+`,"permissions":{"deny":["WebSearch"]}}`+"\n")
	h.write(filepath.Join(h.proj, ".claude", "settings.local.json"), `{}`)
	_, out, _ = h.run("", "doctor")
	line(t, out, `^  WARN\s+WebSearch\s+the deny rule "WebSearch" in \S+settings\.json removes WebSearch from the session: no hook runs and the model gets no answer$`)

	h.env["WEBGATE_HOOKS_ANSWER"] = "deny"
	_, out, _ = h.run("", "doctor")
	line(t, out, `^  INFO\s+style\s+deny \(hooks\.answer deny, env WEBGATE_HOOKS_ANSWER\): the model reads webgate's answers as the hook's denial of the native tool$`)
}

// chmodX makes files executable.
func chmodX(t *testing.T, files ...string) {
	t.Helper()
	for _, f := range files {
		if err := os.Chmod(f, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// readFile returns the contents of path.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A program whose child keeps its output open (here a background sleep)
// does not keep doctor waiting: its version is read, and the wait ends
// about a second after the program exits.
func TestProgramVersion_AChildHoldingTheOutputDoesNotHang(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\nsleep 60 &\necho 'prog 1.2.3'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		v, _ := programVersion(context.Background(), prog, "-v")
		done <- v
	}()
	select {
	case v := <-done:
		if v != "prog 1.2.3" {
			t.Errorf("version %q", v)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("programVersion still waiting 30 s after the program printed its version")
	}
}
