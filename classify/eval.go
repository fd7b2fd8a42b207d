package classify

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Label is one labelled page of an evaluation corpus.
type Label struct {
	// File is the page's path as written in the labels file, relative to
	// the corpus directory.
	File string
	// Class is the expected class.
	Class Class
}

// ReadLabels reads a tab-separated labels file: a header row, then one row
// per page whose first column is the file and whose second column is the
// class (any name ParseClass accepts). Other columns are ignored, as are
// blank lines and lines starting with "#".
func ReadLabels(r io.Reader) ([]Label, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	var out []Label
	line := 0
	header := true
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if header {
			header = false
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) < 2 {
			return nil, fmt.Errorf("classify: labels line %d: want at least 2 tab-separated columns, got %d", line, len(cols))
		}
		c, err := ParseClass(cols[1])
		if err != nil {
			return nil, fmt.Errorf("classify: labels line %d: %w", line, err)
		}
		out = append(out, Label{File: strings.TrimSpace(cols[0]), Class: c})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("classify: reading labels: %w", err)
	}
	return out, nil
}

// Confusion counts decisions by expected class (rows) and decided class
// (columns). The zero value is empty and ready to use.
type Confusion struct {
	counts [3][3]int
}

func classIndex(c Class) int {
	for i, k := range Classes {
		if k == c {
			return i
		}
	}
	return -1
}

// Add records one page whose expected class is want and whose decided
// class is got. Unknown classes are ignored.
func (m *Confusion) Add(want, got Class) {
	i, j := classIndex(want), classIndex(got)
	if i < 0 || j < 0 {
		return
	}
	m.counts[i][j]++
}

// Count returns how many pages of class want were decided as got.
func (m *Confusion) Count(want, got Class) int {
	i, j := classIndex(want), classIndex(got)
	if i < 0 || j < 0 {
		return 0
	}
	return m.counts[i][j]
}

// Total returns how many pages of class want were recorded.
func (m *Confusion) Total(want Class) int {
	i := classIndex(want)
	if i < 0 {
		return 0
	}
	n := 0
	for _, v := range m.counts[i] {
		n += v
	}
	return n
}

// Accuracy returns the share of pages of class want that were decided
// correctly (recall), or 0 when there are none.
func (m *Confusion) Accuracy(want Class) float64 {
	t := m.Total(want)
	if t == 0 {
		return 0
	}
	return float64(m.Count(want, want)) / float64(t)
}

// Overall returns the share of all recorded pages decided correctly, or 0
// when there are none.
func (m *Confusion) Overall() float64 {
	var ok, all int
	for i := range m.counts {
		for j, v := range m.counts[i] {
			all += v
			if i == j {
				ok += v
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(ok) / float64(all)
}

// String renders per-class accuracy, overall accuracy and the matrix as an
// aligned text table.
func (m *Confusion) String() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "class\tpages\tcorrect\taccuracy\n")
	var ok, all int
	for _, c := range Classes {
		t := m.Total(c)
		all += t
		ok += m.Count(c, c)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f%%\n", c, t, m.Count(c, c), 100*m.Accuracy(c))
	}
	fmt.Fprintf(tw, "overall\t%d\t%d\t%.1f%%\n", all, ok, 100*m.Overall())
	tw.Flush()
	b.WriteString("\nconfusion (rows: expected, columns: decided)\n")
	tw = tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "expected \\ decided")
	for _, c := range Classes {
		fmt.Fprintf(tw, "\t%s", c)
	}
	fmt.Fprintln(tw)
	for _, r := range Classes {
		fmt.Fprintf(tw, "%s", r)
		for _, c := range Classes {
			fmt.Fprintf(tw, "\t%d", m.Count(r, c))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	return b.String()
}
