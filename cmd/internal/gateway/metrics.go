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
//
// A series is found by its label pairs as they are (a [series] value, no
// text made of them): counting a call allocates nothing once its series
// exist; the labels are rendered when /metrics is read.
type metrics struct {
	mu       sync.Mutex
	help     map[string]string
	counters map[string]map[series]float64    // family → labels → value
	hists    map[string]map[series]*histogram // family → labels → histogram
}

// series is the label pairs of one series: {k1, v1, k2, v2}, "" keys for
// pairs not used.
type series [4]string

// latencyBuckets are the histograms' upper bounds, in seconds.
var latencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	sum    float64
	n      uint64
}

func newMetrics() *metrics {
	return &metrics{help: map[string]string{}, counters: map[string]map[series]float64{}, hists: map[string]map[series]*histogram{}}
}

// labelEscaper escapes a label's value as the text format wants.
var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// labels returns the series of one or two label pairs ("k1", "v1", "k2",
// "v2"); pairs past two are dropped.
func labels(kv ...string) series {
	var s series
	copy(s[:], kv)
	return s
}

// String renders the series' labels as {k1="v1",k2="v2"}, "" for none.
func (s series) String() string {
	if s[0] == "" {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(s) && s[i] != ""; i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i])
		b.WriteString(`="`)
		b.WriteString(labelEscaper.Replace(s[i+1]))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

func (m *metrics) add(family, help string, s series, v float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counters[family]
	if c == nil {
		m.help[family] = help
		c = map[series]float64{}
		m.counters[family] = c
	}
	c[s] += v
}

// value returns a counter's value.
func (m *metrics) value(family string, s series) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counters[family][s]
}

// set sets a counter kept elsewhere to its current value.
func (m *metrics) set(family, help string, s series, v float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counters[family]
	if c == nil {
		m.help[family] = help
		c = map[series]float64{}
		m.counters[family] = c
	}
	c[s] = v
}

func (m *metrics) observe(family, help string, s series, v float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	hs := m.hists[family]
	if hs == nil {
		m.help[family] = help
		hs = map[series]*histogram{}
		m.hists[family] = hs
	}
	h := hs[s]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(latencyBuckets)+1)}
		hs[s] = h
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
		for _, l := range sortedSeries(m.counters[f]) {
			fmt.Fprintf(&b, "%s%s %s\n", f, l.text, num(m.counters[f][l.s]))
		}
	}
	for _, f := range sortedKeys(m.hists) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s histogram\n", f, m.help[f], f)
		for _, l := range sortedSeries(m.hists[f]) {
			h := m.hists[f][l.s]
			var cum uint64
			for i, le := range latencyBuckets {
				cum += h.counts[i]
				fmt.Fprintf(&b, "%s_bucket%s %d\n", f, withLabel(l.text, "le", num(le)), cum)
			}
			fmt.Fprintf(&b, "%s_bucket%s %d\n", f, withLabel(l.text, "le", "+Inf"), h.n)
			fmt.Fprintf(&b, "%s_sum%s %s\n%s_count%s %d\n", f, l.text, num(h.sum), f, l.text, h.n)
		}
	}
	io.WriteString(w, b.String())
}

// rendered is a series and its labels as written.
type rendered struct {
	s    series
	text string
}

// sortedSeries returns the series of m ordered by their labels as written.
func sortedSeries[V any](m map[series]V) []rendered {
	out := make([]rendered, 0, len(m))
	for s := range m {
		out = append(out, rendered{s, s.String()})
	}
	slices.SortFunc(out, func(a, b rendered) int { return strings.Compare(a.text, b.text) })
	return out
}

func withLabel(l, k, v string) string {
	pair := k + `="` + v + `"`
	if l == "" {
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
