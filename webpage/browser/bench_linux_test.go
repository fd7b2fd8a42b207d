//go:build linux

package browser

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/internal/fakeweb"
)

func benchServer(b *testing.B) string { return fakeweb.AppShell(b, "Rendered body text.") }

// groupSampler samples the memory of a process group every 10ms: the sum
// of VmRSS (every resident page, the browser's binary counted once per
// process) and of RssAnon + RssShmem (what Config.MaxMemoryBytes caps).
type groupSampler struct {
	stop      chan struct{}
	done      chan struct{}
	mu        sync.Mutex
	rss, anon int64
}

func sampleGroup(pgid int) *groupSampler {
	s := &groupSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			var rss, anon int64
			for _, p := range groupProcs(pgid) {
				rss += statusKB(p.pid, "VmRSS") << 10
				anon += (statusKB(p.pid, "RssAnon") + statusKB(p.pid, "RssShmem")) << 10
			}
			s.mu.Lock()
			s.rss, s.anon = max(s.rss, rss), max(s.anon, anon)
			s.mu.Unlock()
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *groupSampler) peaks() (rss, anon int64) {
	close(s.stop)
	<-s.done
	return s.rss, s.anon
}

func statusKB(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		if name, rest, ok := bytes.Cut(line, []byte{':'}); ok && string(name) == field {
			f := bytes.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(string(f[0]), 10, 64)
				return n
			}
		}
	}
	return 0
}

// BenchmarkRenderCold renders a small loopback single-page app with a cold
// browser each time, with the default settle rules.
func BenchmarkRenderCold(b *testing.B) {
	needBrowser(b)
	target := benchServer(b)
	cfg := Config{CheckAddress: testRule, LookupIP: testLookup}
	var sampler *groupSampler
	testHookStarted = func(pgid int, _ string) { sampler = sampleGroup(pgid) }
	defer func() { testHookStarted = nil }()
	var peakRSS, peakAnon int64
	var start, settle time.Duration
	n := 0
	for b.Loop() {
		p, err := Render(context.Background(), target, &cfg)
		if sampler != nil {
			rss, anon := sampler.peaks()
			peakRSS, peakAnon = max(peakRSS, rss), max(peakAnon, anon)
			sampler = nil
		}
		if err != nil {
			b.Fatal(err)
		}
		if !strings.Contains(p.HTML, "Rendered body text.") {
			b.Fatalf("the page was not rendered:\n%s", p.HTML)
		}
		start += p.Timings.Start
		settle += p.Timings.Settle
		n++
	}
	b.ReportMetric(float64(start.Milliseconds())/float64(n), "start-ms/op")
	b.ReportMetric(float64(settle.Milliseconds())/float64(n), "settle-ms/op")
	b.ReportMetric(float64(peakRSS>>20), "peak-rss-MiB")
	b.ReportMetric(float64(peakAnon>>20), "peak-anon-MiB")
}

// BenchmarkRenderWarm renders the same page with a browser kept warm in a
// [Pool] (started by a render before the timer starts): each render opens
// a fresh browser context in it.
func BenchmarkRenderWarm(b *testing.B) {
	needBrowser(b)
	target := benchServer(b)
	pool := NewPool(time.Minute)
	defer pool.Close()
	cfg := Config{CheckAddress: testRule, LookupIP: testLookup, Pool: pool}
	var sampler *groupSampler
	testHookStarted = func(pgid int, _ string) { sampler = sampleGroup(pgid) }
	defer func() { testHookStarted = nil }()
	if _, err := Render(context.Background(), target, &cfg); err != nil {
		b.Fatal(err)
	}
	var settle time.Duration
	n := 0
	for b.Loop() {
		p, err := Render(context.Background(), target, &cfg)
		if err != nil {
			b.Fatal(err)
		}
		if !strings.Contains(p.HTML, "Rendered body text.") {
			b.Fatalf("the page was not rendered:\n%s", p.HTML)
		}
		settle += p.Timings.Settle
		n++
	}
	b.ReportMetric(float64(settle.Milliseconds())/float64(n), "settle-ms/op")
	if sampler != nil {
		rss, anon := sampler.peaks()
		b.ReportMetric(float64(rss>>20), "peak-rss-MiB")
		b.ReportMetric(float64(anon>>20), "peak-anon-MiB")
	}
}

// BenchmarkDumpDOM runs the browser's own --dump-dom on the same page, for
// comparison: one process, no proxy, no settle wait (it prints the DOM at
// the load event, before or after the page's fetch has landed).
func BenchmarkDumpDOM(b *testing.B) {
	needBrowser(b)
	exe, _ := Find("")
	target := benchServer(b)
	// The browser's own traffic goes through a proxy that allows
	// 127.0.0.1 only, and its resolver answers nothing, so that nothing
	// leaves the machine; the proxy records anything else it asks for.
	dl := &decisionLog{start: time.Now()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	px, err := startProxy(ctx, only127, testLookup, dl)
	if err != nil {
		b.Fatal(err)
	}
	defer px.close()
	var peakRSS, peakAnon int64
	rendered, n := 0, 0
	for b.Loop() {
		dir, err := os.MkdirTemp("", "webgate-dumpdom-")
		if err != nil {
			b.Fatal(err)
		}
		args := []string{
			"--headless", "--disable-gpu", "--no-first-run", "--user-data-dir=" + dir,
			"--proxy-server=http://" + px.addr(), "--proxy-bypass-list=<-loopback>",
			"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
			"--dump-dom", target,
		}
		if os.Getuid() == 0 {
			args = append([]string{"--no-sandbox"}, args...)
		}
		cmd := exec.Command(exe, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		sampler := sampleGroup(cmd.Process.Pid)
		err = cmd.Wait()
		rss, anon := sampler.peaks()
		_ = killGroup(cmd.Process.Pid)
		_ = os.RemoveAll(dir)
		if err != nil {
			b.Fatal(fmt.Errorf("%s --dump-dom: %w", exe, err))
		}
		peakRSS, peakAnon = max(peakRSS, rss), max(peakAnon, anon)
		if strings.Contains(out.String(), "Rendered body text.") {
			rendered++
		}
		n++
	}
	decisions, _ := dl.snapshot()
	for _, d := range decisions {
		if !d.Allowed {
			b.Logf("the browser asked for %v", d)
		}
	}
	b.ReportMetric(float64(rendered)/float64(n), "rendered/op")
	b.ReportMetric(float64(peakRSS>>20), "peak-rss-MiB")
	b.ReportMetric(float64(peakAnon>>20), "peak-anon-MiB")
}
