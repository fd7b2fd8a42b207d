package gateway

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadReplicaEnv names the variable that makes TestLoadReplicaProcess
// serve a replica of the load benchmark: the redis-server URL it shares.
const loadReplicaEnv = "WEBGATE_LOAD_REPLICA_REDIS"

// replicaReport is what a replica process of the load benchmark tells
// once its standard input is closed, as one JSON line.
type replicaReport struct {
	Over     []time.Duration `json:"over"`
	Ahead    []int64         `json:"ahead"`
	Inline   float64         `json:"inline"`
	CacheOff bool            `json:"cache_off"`
}

// TestLoadReplicaProcess is not a test: run by BenchmarkGatewayLoad with
// loadReplicaEnv set, it serves one gateway replica on 127.0.0.1 (as
// startLoadReplicas does, in a process of its own), prints "listening
// URL", and, when its standard input is closed, flushes the replica and
// prints its replicaReport.
func TestLoadReplicaProcess(t *testing.T) {
	url := os.Getenv(loadReplicaEnv)
	if url == "" {
		t.Skip("a replica process of BenchmarkGatewayLoad/spread-processes")
	}
	server := &handlerTimes{}
	rs := startReplicas(t, url, 1, Limits{RequestsPerDay: 1 << 40}, benchDelay, replicaExtra{
		options: func(o *Options) { o.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil)) },
		wrap:    server.wrap,
	})
	if os.Getenv(loadReplicaEnv+"_SPREAD") != "" {
		rs[0].search.jitter = 0.1
	}
	fmt.Printf("listening %s\n", rs[0].url)
	io.Copy(io.Discard, os.Stdin)
	flushAll(t, rs)
	server.mu.Lock()
	defer server.mu.Unlock()
	json.NewEncoder(os.Stdout).Encode(replicaReport{Over: server.over, Ahead: server.ahead,
		Inline: rs[0].srv.metrics.value("webgate_gateway_after_inline_total", series{}), CacheOff: rs[0].mem.Skipped() != ""})
}

// startReplicaProcesses starts the two replicas of a load run, each in a
// process of its own (this test binary, running TestLoadReplicaProcess);
// finish closes their standard input, reads their reports and waits for
// them, and counts their CPU.
func startReplicaProcesses(b *testing.B, redisURL string, spread bool) (urls []string, finish func() loadServerSide) {
	type proc struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Scanner
	}
	var ps []*proc
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestLoadReplicaProcess$")
		cmd.Env = append(os.Environ(), loadReplicaEnv+"="+redisURL)
		if spread {
			cmd.Env = append(cmd.Env, loadReplicaEnv+"_SPREAD=1")
		}
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		p := &proc{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
		p.out.Buffer(nil, 64<<20)
		b.Cleanup(func() {
			stdin.Close()
			if p.cmd.ProcessState == nil {
				p.cmd.Process.Kill()
				p.cmd.Wait()
			}
		})
		ps = append(ps, p)
		for p.out.Scan() {
			if u, ok := strings.CutPrefix(p.out.Text(), "listening "); ok {
				urls = append(urls, u)
				break
			}
		}
		if len(urls) != len(ps) {
			b.Fatalf("replica process: no listening line (%v)", p.out.Err())
		}
	}
	return urls, func() loadServerSide {
		before := childrenCPU()
		out := loadServerSide{times: &handlerTimes{}}
		for _, p := range ps {
			p.stdin.Close()
		}
		for _, p := range ps {
			var rep replicaReport
			found := false
			for p.out.Scan() {
				if line := p.out.Text(); strings.HasPrefix(line, "{") {
					if err := json.Unmarshal([]byte(line), &rep); err != nil {
						b.Fatal(err)
					}
					found = true
				}
			}
			if err := p.cmd.Wait(); err != nil || !found {
				b.Fatalf("replica process: %v, report found: %v", err, found)
			}
			out.times.over = append(out.times.over, rep.Over...)
			out.times.ahead = append(out.times.ahead, rep.Ahead...)
			out.inline += rep.Inline
			if rep.CacheOff {
				out.cacheOff++
			}
		}
		out.cpu = childrenCPU() - before
		return out
	}
}

// childrenCPU returns the CPU time (user and system) of the child
// processes waited for.
func childrenCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
