package classify

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDumpFeatures(t *testing.T) {
	if os.Getenv("DUMP") == "" {
		t.Skip()
	}
	dir := "/work/shared/corpus"
	data, _ := os.ReadFile(filepath.Join(dir, "labels.tsv"))
	r := csv.NewReader(strings.NewReader(string(data)))
	r.Comma = '\t'
	r.LazyQuotes = true
	rows, _ := r.ReadAll()
	fmt.Printf("%-45s %4s %6s %6s %6s %5s %4s %6s %6s %3s %4s %4s %4s %4s %3s %3s %5s %5s %7s %7s %s\n", "file", "cls", "vis", "p", "clus", "ld", "lp", "longst", "main", "cp", "lnk", "li", "hl", "lblk", "art", "scr", "src", "mod", "inl", "data", "mounts/etc")
	for _, row := range rows[1:] {
		b, _ := os.ReadFile(filepath.Join(dir, row[0]))
		f := analyze(b)
		ld := 0.0
		if f.visibleWords > 0 {
			ld = f.linkWords / f.visibleWords
		}
		ms := ""
		for _, m := range f.mounts {
			ms += fmt.Sprintf("%s:%.0f ", m.desc, m.words)
		}
		fmt.Printf("%-45s %4s %6.0f %6.0f %6.0f %5.2f %4d %6.0f %6.0f %3d %4d %4d %4d %4d %3d %3d %5d %5d %7d %7d %v js=%v %q b=%d meta=%v/%v chrome=%.0f %s\n",
			filepath.Base(row[0]), row[1][:4], f.visibleWords, f.pWords, f.clusterWords, ld, f.longParas, f.longestPara, f.mainWords, f.clusterParas,
			f.links, f.listItems, f.headingLinks, f.linkBlocks, f.articles, f.scripts, f.scriptSrc, f.moduleScripts, f.inlineScript, f.dataBytes, f.dataMarkers, f.jsNotice, f.jsNoticeText, f.bindings, f.articleMeta, f.listingMeta, f.chromeWords, ms)
	}
}
