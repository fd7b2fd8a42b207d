package pdf_test

import (
	"context"
	"testing"

	"github.com/webgate-dev/webgate/webpage/pdf"
)

// BenchmarkRead reads each fixture with each engine. Besides the wall
// time it reports the CPU time per read (cpu-ns/op), this process's and
// its children's (pdftotext) together, which a busy machine does not
// inflate.
func BenchmarkRead(b *testing.B) {
	files := []string{"002-trivial-libre-office-writer.pdf", "pdflatex-4-pages.pdf", "multicolumn.pdf", "google-doc-document.pdf", "habibi.pdf", "crazyones-pdfa.pdf"}
	for _, name := range files {
		data := fixture(b, name)
		for _, engine := range []struct{ name, setting string }{{pdf.EnginePdftotext, ""}, {pdf.EngineGo, "off"}} {
			b.Run(name+"/"+engine.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				start := cpuTime()
				for b.Loop() {
					doc, err := pdf.Read(context.Background(), data, &pdf.Options{Pdftotext: engine.setting})
					if err != nil {
						b.Fatal(err)
					}
					if doc.Engine != engine.name {
						b.Skipf("read by %s", doc.Engine)
					}
				}
				b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
