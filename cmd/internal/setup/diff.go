package setup

import (
	"fmt"
	"strings"
)

// unifiedDiff returns a unified diff of a and b (whole-file hunks with three
// lines of context), or "" when they are equal.
func unifiedDiff(name string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	x := splitLines(string(a))
	y := splitLines(string(b))
	type line struct {
		op   byte
		text string
	}
	// Lines common to both ends are context; only the middle is compared.
	head := 0
	for head < len(x) && head < len(y) && x[head] == y[head] {
		head++
	}
	tail := 0
	for tail < len(x)-head && tail < len(y)-head && x[len(x)-1-tail] == y[len(y)-1-tail] {
		tail++
	}
	ops := make([]line, 0, len(x)+len(y)-head-tail)
	for _, l := range x[:head] {
		ops = append(ops, line{' ', l})
	}
	mx, my := x[head:len(x)-tail], y[head:len(y)-tail]
	n, m := len(mx), len(my)
	if n*m > maxDiffCells {
		// Too large a middle for a longest common subsequence table (a
		// settings file is small; a file this large is not one): show it
		// as replaced.
		for _, l := range mx {
			ops = append(ops, line{'-', l})
		}
		for _, l := range my {
			ops = append(ops, line{'+', l})
		}
	} else {
		// Longest common subsequence table, one row of m+1 cells per line.
		w := m + 1
		lcs := make([]int32, (n+1)*w)
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if mx[i] == my[j] {
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				} else {
					lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && mx[i] == my[j]:
				ops = append(ops, line{' ', mx[i]})
				i++
				j++
			case i < n && (j == m || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
				ops = append(ops, line{'-', mx[i]})
				i++
			default:
				ops = append(ops, line{'+', my[j]})
				j++
			}
		}
	}
	for _, l := range x[len(x)-tail:] {
		ops = append(ops, line{' ', l})
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s (after)\n", name, name)
	const ctx = 3
	for k := 0; k < len(ops); {
		if ops[k].op == ' ' {
			k++
			continue
		}
		start := max(0, k-ctx)
		end := k
		for end < len(ops) {
			if ops[end].op != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].op == ' ' {
				run++
			}
			if run-end > 2*ctx || run == len(ops) {
				end = min(len(ops), end+ctx)
				break
			}
			end = run
		}
		aStart, bStart := 1, 1
		for _, l := range ops[:start] {
			if l.op != '+' {
				aStart++
			}
			if l.op != '-' {
				bStart++
			}
		}
		aLen, bLen := 0, 0
		for _, l := range ops[start:end] {
			if l.op != '+' {
				aLen++
			}
			if l.op != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", aStart, aLen, bStart, bLen)
		for _, l := range ops[start:end] {
			out.WriteByte(l.op)
			out.WriteString(l.text)
			out.WriteByte('\n')
		}
		k = end
	}
	return out.String()
}

// maxDiffCells bounds the table [unifiedDiff] builds: 4 Mi cells, 16 MiB.
const maxDiffCells = 4 << 20

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
