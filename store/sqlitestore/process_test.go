//go:build unix

package sqlitestore_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/store/sqlitestore"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// The tests below re-run this test binary as child processes: childEnv
// names what the child does, pathEnv the database it uses.
const (
	childEnv = "WEBGATE_SQLITESTORE_TEST_CHILD"
	pathEnv  = "WEBGATE_SQLITESTORE_TEST_PATH"
	countEnv = "WEBGATE_SQLITESTORE_TEST_COUNT"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(child(mode, os.Getenv(pathEnv)))
	}
	os.Exit(m.Run())
}

// child runs one child process's part and returns its exit status; it
// reports failures on stderr.
func child(mode, path string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	if mode == "noop" {
		fmt.Println("open_ns 0")
		return 0
	}
	s, err := storeurl.Open(ctx, "sqlite://"+path, &store.Options{Timeout: 60 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		return 1
	}
	defer s.Close()
	switch mode {
	case "open":
		if _, err := s.Get(ctx, "k"); err != nil && !errors.Is(err, store.ErrNotFound) {
			fmt.Fprintln(os.Stderr, "get:", err)
			return 1
		}
		fmt.Println("open_ns", time.Since(start).Nanoseconds())
	case "hammer":
		n, _ := strconv.Atoi(os.Getenv(countEnv))
		for i := range n {
			if _, err := s.Incr(ctx, "mp/count", 1, 0); err != nil {
				fmt.Fprintln(os.Stderr, "incr:", err)
				return 1
			}
			_, err := s.Update(ctx, "mp/value", 0, func(cur []byte, found bool) ([]byte, error) {
				v := 0
				if found {
					var err error
					if v, err = strconv.Atoi(string(cur)); err != nil {
						return nil, err
					}
				}
				return []byte(strconv.Itoa(v + 1)), nil
			})
			if err != nil {
				fmt.Fprintln(os.Stderr, "update:", err)
				return 1
			}
			if i%5 == 0 {
				if _, err := s.Append(ctx, "mp/log", []byte("x"), store.Retention{MaxRecords: 50}); err != nil {
					fmt.Fprintln(os.Stderr, "append:", err)
					return 1
				}
			}
		}
	case "writer":
		// Writes as fast as it can until it is killed.
		big := bytes.Repeat([]byte("0123456789abcdef"), 8<<10)
		for i := 0; ; i++ {
			if err := s.Set(ctx, fmt.Sprintf("big/%d", i%50), big, 0); err != nil {
				fmt.Fprintln(os.Stderr, "set:", err)
				return 1
			}
			if _, err := s.IncrMany(ctx, map[string]int64{"w/a": 1, "w/b": 1}, 0); err != nil {
				fmt.Fprintln(os.Stderr, "incr:", err)
				return 1
			}
			if _, err := s.Clear(ctx, fmt.Sprintf("big/%d", (i+25)%50)); err != nil {
				fmt.Fprintln(os.Stderr, "clear:", err)
				return 1
			}
			if i == 0 {
				fmt.Println("writing")
			}
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown child mode", mode)
		return 2
	}
	return 0
}

func childCmd(t testing.TB, mode, path string, extra ...string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, pathEnv+"="+path)
	cmd.Env = append(cmd.Env, extra...)
	return cmd
}

func TestManyProcessesIncrementWithoutLossOrLockErrors(t *testing.T) {
	const procs, each = 20, 15
	path := filepath.Join(t.TempDir(), "store.db")
	open(t, sqlitestore.Config{Path: path}).Close()
	var wg sync.WaitGroup
	errs := make(chan string, procs)
	for range procs {
		wg.Go(func() {
			cmd := childCmd(t, "hammer", path, countEnv+"="+strconv.Itoa(each))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil || stderr.Len() > 0 {
				errs <- fmt.Sprintf("%v: %s", err, stderr.String())
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("child: %s", e)
	}
	s := store.New(open(t, sqlitestore.Config{Path: path}), nil)
	ctx := ctxFor(t, quick)
	cs, err := s.Counters(ctx, "mp/")
	if err != nil {
		t.Fatal(err)
	}
	if cs["mp/count"] != procs*each {
		t.Errorf("counter = %d, want %d", cs["mp/count"], procs*each)
	}
	e, err := s.Get(ctx, "mp/value")
	if err != nil || string(e.Value) != strconv.Itoa(procs*each) {
		t.Errorf("updated value = %q, %v; want %d", e.Value, err, procs*each)
	}
	recs, err := s.List(ctx, "mp/log", store.ListQuery{})
	if err != nil || len(recs) != 50 {
		t.Errorf("log holds %d records (%v), want 50", len(recs), err)
	}
}

func TestAdversarialWriterKilledMidWriteLeavesAUsableStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	for round := range 3 {
		cmd := childCmd(t, "writer", path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if strings.TrimSpace(line) != "writing" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: writer did not start: %q %s", round, line, stderr.String())
		}
		time.Sleep(time.Duration(40+60*round) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if stderr.Len() > 0 {
			t.Fatalf("round %d: writer failed before it was killed: %s", round, stderr.String())
		}

		start := time.Now()
		s, err := storeurl.Open(ctxFor(t, quick), "sqlite://"+path, nil)
		if err != nil {
			t.Fatalf("round %d: Open after a killed writer: %v", round, err)
		}
		ctx := ctxFor(t, quick)
		if err := s.Set(ctx, "after", []byte("ok"), 0); err != nil {
			t.Fatalf("round %d: write after a killed writer: %v", round, err)
		}
		cs, err := s.Counters(ctx, "w/")
		if err != nil || cs["w/a"] != cs["w/b"] || cs["w/a"] == 0 {
			t.Fatalf("round %d: counters %v (%v): a batch was torn or lost", round, cs, err)
		}
		s.Close()
		t.Logf("round %d: %d batches committed; reopened and written in %v", round, cs["w/a"], time.Since(start))
	}
	var res string
	if err := rawDB(t, path).QueryRow("PRAGMA integrity_check").Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %q, %v", res, err)
	}
}

// BenchmarkOpenInFreshProcess times what every hook process pays to use
// the store: starting a process that opens an existing database and reads
// one key, against the same process that exits at once (noop). open_ms is
// the time from Open to the end of the read inside the child.
func BenchmarkOpenInFreshProcess(b *testing.B) {
	path := filepath.Join(b.TempDir(), "store.db")
	open(b, sqlitestore.Config{Path: path}).Close()
	for _, mode := range []string{"noop", "open"} {
		b.Run(mode, func(b *testing.B) {
			var inside time.Duration
			for b.Loop() {
				out, err := childCmd(b, mode, path).Output()
				if err != nil {
					b.Fatal(err, string(out))
				}
				ns, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(string(out), "open_ns ")), 10, 64)
				if err != nil {
					b.Fatalf("child said %q", out)
				}
				inside += time.Duration(ns)
			}
			b.ReportMetric(float64(inside.Microseconds())/1000/float64(b.N), "open_ms")
		})
	}
}
