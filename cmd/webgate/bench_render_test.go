package main

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/webpage/browser"
)

// BenchmarkProcess_FetchRenderVsDumpDOM times, in turn, a whole
// `webgate fetch` of a small loopback app shell (probe, classifier, a cold
// browser, settle, conversion, cleanup) and the browser's own
// `--dump-dom` of the same page, and reports the medians of each and of
// their difference, pair by pair.
func BenchmarkProcess_FetchRenderVsDumpDOM(b *testing.B) {
	exe, err := browser.Find("auto")
	if err != nil {
		b.Skipf("no local browser: %v", err)
	}
	bin := buildWebgate(b)
	body := strings.Repeat("Rendered body text: the report is due on Friday, and the review follows on Monday. Every team sends its part to the editor first. ", 12)
	target := fakeweb.AppShell(b, body)
	// Anything the browser asks for beyond loopback goes to a port nothing
	// listens on, and its resolver answers no name.
	deadProxy := fakeweb.RefusedAddr(b)
	home := b.TempDir()
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "WEBGATE_BROWSER=" + exe,
		"WEBGATE_STORE=off", "WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=true"}
	var fetches, dumps, diffs []float64
	rendered := 0
	for b.Loop() {
		t0 := time.Now()
		cmd := exec.Command(bin, "fetch", target)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		f := time.Since(t0)
		if err != nil || !bytes.Contains(out, []byte("Rendered body text")) {
			b.Fatalf("webgate fetch: %v\n%s", err, out)
		}
		dir := b.TempDir()
		args := []string{"--headless", "--disable-gpu", "--no-first-run", "--user-data-dir=" + dir,
			"--disable-background-networking", "--disable-component-update",
			"--proxy-server=http://" + deadProxy, "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
			"--dump-dom", target}
		if os.Getuid() == 0 {
			args = append([]string{"--no-sandbox"}, args...)
		}
		t1 := time.Now()
		dump := exec.Command(exe, args...)
		var stdout, stderr bytes.Buffer
		dump.Stdout, dump.Stderr = &stdout, &stderr
		if err := dump.Run(); err != nil {
			b.Fatalf("%s --dump-dom: %v\n%s", exe, err, stderr.Bytes())
		}
		d := time.Since(t1)
		if bytes.Contains(stdout.Bytes(), []byte("Rendered body text")) {
			rendered++
		}
		fetches, dumps = append(fetches, ms(f)), append(dumps, ms(d))
		diffs = append(diffs, ms(f-d))
	}
	b.ReportMetric(median(fetches), "fetch-ms")
	b.ReportMetric(median(dumps), "dumpdom-ms")
	b.ReportMetric(median(diffs), "diff-ms")
	// --dump-dom prints the DOM at the load event: this is how often the
	// script's content was in it.
	b.ReportMetric(float64(rendered)/float64(len(dumps)), "dumpdom-rendered/op")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	return s[len(s)/2]
}
