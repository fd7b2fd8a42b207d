package classify

import (
	"sort"
	"testing"
	"time"
)

// BenchmarkClassify_Corpus classifies every corpus page once per iteration.
// Besides ns/op (one pass over the corpus) it reports:
//
//	ns/100KB         total time over total bytes, scaled to 100 KB
//	median-ns/100KB  the median over pages of each page's time per 100 KB
//	max-ns/100KB     the slowest page's time per 100 KB
func BenchmarkClassify_Corpus(b *testing.B) {
	pages := loadCorpus(b)
	var total int64
	for _, p := range pages {
		total += int64(len(p.data))
	}
	perPage := make([]time.Duration, len(pages))
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, p := range pages {
			start := time.Now()
			ClassifyBytes(p.data)
			perPage[j] += time.Since(start)
		}
	}
	b.StopTimer()
	const unit = 100 * 1000.0
	rates := make([]float64, len(pages))
	var sum time.Duration
	for j, p := range pages {
		sum += perPage[j]
		rates[j] = float64(perPage[j].Nanoseconds()) / float64(b.N) / float64(len(p.data)) * unit
	}
	sort.Float64s(rates)
	b.ReportMetric(float64(sum.Nanoseconds())/float64(b.N)/float64(total)*unit, "ns/100KB")
	b.ReportMetric(rates[len(rates)/2], "median-ns/100KB")
	b.ReportMetric(rates[len(rates)-1], "max-ns/100KB")
}

// BenchmarkClassify_Fixture measures one typical article page.
func BenchmarkClassify_Fixture(b *testing.B) {
	data := mustRead(b, "../fixtures/readable/blog-article.html")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ClassifyBytes(data)
	}
}
