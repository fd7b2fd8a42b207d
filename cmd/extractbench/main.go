// Command extractbench reads every page of the WCXB development split
// through webgate's page reader and prints word F1 overall and per page
// type beside the published systems' figures (package extractbench).
//
//	go run ./cmd/extractbench [-dir ../shared/extraction/wcxb] [-results out.json]
//
// -results writes the extracted plain text as the benchmark's evaluate.py
// reads it ({"0001": "text", ...}), to score with its own script:
// python3 evaluate.py --split dev --results out.json --per-type. -scores
// writes each page's scores, class and mode; -worst lists the pages with
// the lowest F1; -engine article or structure reads every page with that
// conversion alone, to compare with the reader's choice; -cpuprofile
// writes a CPU profile of the reading (go tool pprof).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/extractbench"
	"github.com/webgate-dev/webgate/webpage"
)

func main() {
	dir := flag.String("dir", extractbench.DefaultDir, "the benchmark's folder (holding dev/ and evaluate.py)")
	results := flag.String("results", "", "write the extracted text of every page to this JSON file, in evaluate.py's format")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "pages read at once")
	ids := flag.String("ids", "", "comma-separated page ids to read (default: every page)")
	scores := flag.String("scores", "", "write each page's type, precision, recall and F1 to this JSON file")
	engine := flag.String("engine", "reader", "reader (the product's page reader), or one conversion alone for every page: auto, article, structure")
	worst := flag.Int("worst", 0, "list the N pages with the lowest F1")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the reading to this file")
	flag.Parse()

	var list []string
	if *ids != "" {
		list = strings.Split(*ids, ",")
	}
	pages, err := extractbench.Load(*dir, list...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "extractbench:", err)
		os.Exit(1)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "extractbench:", err)
			os.Exit(1)
		}
		defer f.Close()
	}
	cpu0 := cpuTime()
	start := time.Now()
	read := extractbench.Product()
	switch *engine {
	case "reader":
	case "auto", "article", "structure":
		mode := webpage.ConvertMode(*engine)
		if mode == "auto" {
			mode = webpage.ConvertAuto
		}
		read = extractbench.Converter(mode)
	default:
		fmt.Fprintln(os.Stderr, "extractbench: unknown engine", *engine)
		os.Exit(2)
	}
	res, err := extractbench.Run(context.Background(), pages, read, *workers)
	if err != nil {
		fmt.Fprintln(os.Stderr, "extractbench:", err)
		os.Exit(1)
	}
	wall, cpu := time.Since(start), cpuTime()-cpu0
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	extractbench.Write(os.Stdout, res)
	fmt.Printf("\n%d pages in %.1fs (%d workers); CPU %.1f ms per page\n", len(res), wall.Seconds(), *workers, float64(cpu.Microseconds())/1000/float64(len(res)))
	if *worst > 0 {
		sort.SliceStable(res, func(i, j int) bool { return res[i].F1 < res[j].F1 })
		for _, r := range res[:min(*worst, len(res))] {
			fmt.Printf("%s %-13s F1 %.3f P %.3f R %.3f class %-24s structure %-5v %s\n", r.ID, r.Type, r.F1, r.Precision, r.Recall, r.Class, r.Structure, r.URL)
		}
	}
	if *scores != "" {
		type score struct {
			Type                  string
			Precision, Recall, F1 float64
			Class                 string
			Structure             bool
		}
		out := map[string]score{}
		for _, r := range res {
			out[r.ID] = score{r.Type, r.Precision, r.Recall, r.F1, string(r.Class), r.Structure}
		}
		writeJSON(*scores, out)
	}
	if *results != "" {
		writeJSON(*results, extractbench.Predictions(res))
	}
}

// writeJSON writes v to the file path as indented JSON, or exits.
func writeJSON(path string, v any) {
	b, err := json.MarshalIndent(v, "", " ")
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "extractbench:", err)
		os.Exit(1)
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
