package gateway

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// metrics is the gateway's few counters and histograms, written in the
// Prometheus text exposition format (version 0.0.4). A dozen series do not
// need a client library and its dependencies.
type metrics struct {
	mu       sync.Mutex
	help     map[string]string
	counters map[string]map[string]float64    // family → labels → value
	hists    map[string]map[string]*histogram // family → labels → histogram
}

// latencyBuckets are the histograms' upper bounds, in seconds.
var latencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	sum    float64
	n      uint64
}

func newMetrics() *metrics {
	return &metrics{help: map[string]string{}, counters: map[string]map[string]float64{}, hists: map[string]map[string]*histogram{}}
}

// labelEscaper escapes a label's value as the text format wants.
var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// labels renders label pairs ("k1", "v1", "k2", "v2") as {k1="v1",k2="v2"}.
func labels(kv ...string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(kv[i])
		b.WriteString(`="`)
		b.WriteString(labelEscaper.Replace(kv[i+1]))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

func (m *metrics) add(family, help, lbls string, v float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.help[family] = help
	if m.counters[family] == nil {
		m.counters[family] = map[string]float64{}
	}
	m.counters[family][lbls] += v
}

// value returns a counter's value.
func (m *metrics) value(family, lbls string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counters[family][lbls]
}

// set sets a counter kept elsewhere to its current value.
func (m *metrics) set(family, help, lbls string, v float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.help[family] = help
	if m.counters[family] == nil {
		m.counters[family] = map[string]float64{}
	}
	m.counters[family][lbls] = v
}

func (m *metrics) observe(family, help, lbls string, v float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.help[family] = help
	if m.hists[family] == nil {
		m.hists[family] = map[string]*histogram{}
	}
	h := m.hists[family][lbls]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(latencyBuckets)+1)}
		m.hists[family][lbls] = h
	}
	i, _ := slices.BinarySearch(latencyBuckets, v)
	h.counts[i]++
	h.sum += v
	h.n++
}

// write writes every series in the text format, families and series in
// a stable order.
func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if rw, ok := w.(interface{ Header() map[string][]string }); ok {
		rw.Header()["Content-Type"] = []string{"text/plain; version=0.0.4; charset=utf-8"}
	}
	var b strings.Builder
	for _, f := range sortedKeys(m.counters) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n", f, m.help[f], f)
		for _, l := range sortedKeys(m.counters[f]) {
			fmt.Fprintf(&b, "%s%s %s\n", f, trimEmpty(l), num(m.counters[f][l]))
		}
	}
	for _, f := range sortedKeys(m.hists) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s histogram\n", f, m.help[f], f)
		for _, l := range sortedKeys(m.hists[f]) {
			h := m.hists[f][l]
			var cum uint64
			for i, le := range latencyBuckets {
				cum += h.counts[i]
				fmt.Fprintf(&b, "%s_bucket%s %d\n", f, withLabel(l, "le", num(le)), cum)
			}
			fmt.Fprintf(&b, "%s_bucket%s %d\n", f, withLabel(l, "le", "+Inf"), h.n)
			fmt.Fprintf(&b, "%s_sum%s %s\n%s_count%s %d\n", f, trimEmpty(l), num(h.sum), f, trimEmpty(l), h.n)
		}
	}
	io.WriteString(w, b.String())
}

func trimEmpty(l string) string {
	if l == "{}" {
		return ""
	}
	return l
}

func withLabel(l, k, v string) string {
	pair := k + `="` + v + `"`
	if l == "" || l == "{}" {
		return "{" + pair + "}"
	}
	return l[:len(l)-1] + "," + pair + "}"
}

func num(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
