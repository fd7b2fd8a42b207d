package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// corpusDir finds the labelled page corpus: WEBGATE_CORPUS_DIR when set,
// else ../shared/corpus next to the repository root.
func corpusDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("WEBGATE_CORPUS_DIR"); d != "" {
		return d
	}
	// The package directory is <root>/classify.
	wd, err := os.Getwd()
	if err != nil {
		t.Skipf("corpus: %v", err)
	}
	return filepath.Join(filepath.Dir(wd), "..", "shared", "corpus")
}

type corpusPage struct {
	Label
	path string
	data []byte
}

func loadCorpus(t testing.TB) []corpusPage {
	t.Helper()
	dir := corpusDir(t)
	f, err := os.Open(filepath.Join(dir, "labels.tsv"))
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	defer f.Close()
	labels, err := ReadLabels(f)
	if err != nil {
		t.Fatal(err)
	}
	pages := make([]corpusPage, 0, len(labels))
	for _, l := range labels {
		p := filepath.Join(dir, filepath.FromSlash(l.File))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("corpus page %s: %v", l.File, err)
		}
		pages = append(pages, corpusPage{Label: l, path: p, data: b})
	}
	if len(pages) == 0 {
		t.Skip("corpus has no pages")
	}
	return pages
}

func TestClassify_CorpusAccuracyMeetsTargets(t *testing.T) {
	pages := loadCorpus(t)
	var m Confusion
	for _, p := range pages {
		r := ClassifyBytes(p.data)
		m.Add(p.Class, r.Class)
		if r.Class != p.Class {
			t.Logf("miss: %s want %s got %s (%.2f)", p.File, p.Class, r.Class, r.Confidence)
			for _, s := range r.Signals[:min(4, len(r.Signals))] {
				t.Logf("    %s", s)
			}
		}
	}
	t.Logf("corpus accuracy:\n%s", m.String())
	if got := m.Overall(); got < 0.95 {
		t.Errorf("overall accuracy %.1f%%, want >= 95%%", 100*got)
	}
	for _, c := range Classes {
		if got := m.Accuracy(c); got < 0.90 {
			t.Errorf("%s accuracy %.1f%%, want >= 90%%", c, 100*got)
		}
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
