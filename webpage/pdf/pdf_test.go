package pdf_test

import (
	"context"
	"encoding/ascii85"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/webpage/pdf"
)

// engines returns the engines to test: pdftotext when it is installed,
// and the pure-Go reader.
func engines(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{pdf.EngineGo: "off"}
	if _, err := exec.LookPath("pdftotext"); err == nil {
		out[pdf.EnginePdftotext] = ""
	} else {
		t.Log("pdftotext is not installed; only the pure-Go reader is tested")
	}
	return out
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// words folds text to its words, so that line breaks and hyphenation
// choices of the two engines compare alike.
func words(s string) string {
	s = strings.ReplaceAll(s, "-\n", "")
	return strings.Join(strings.Fields(s), " ")
}

// Both engines read each fixture: title, page count and key sentences.
func TestRead_FixturesWithBothEngines(t *testing.T) {
	for _, tc := range []struct {
		file  string
		title string
		pages int
		want  []string
	}{
		{"002-trivial-libre-office-writer.pdf", "", 1, []string{
			"Lorem ipsum dolor sit amet, consetetur sadipscing elitr",
			"Stet clita kasd gubergren, no sea takimata sanctus est Lorem ipsum dolor sit amet.",
		}},
		{"pdflatex-4-pages.pdf", "", 4, []string{
			"Hello, here is some text without a meaning.",
			"Is there a difference between this text and some nonsense like “Huardest gefburn”?",
		}},
		{"multicolumn.pdf", "", 3, []string{
			"Two-Column Document with Lorem Ipsum",
			"Curabitur dictum gravida mauris.",
		}},
		{"google-doc-document.pdf", "PDF Example Document", 1, []string{
			"Example document",
			"Beautiful is better than ugly. Explicit is better than implicit.",
			"Special cases aren't special enough to break the rules.",
		}},
		{"habibi.pdf", "habibi", 1, []string{"habibi"}},
		{"crazyones-pdfa.pdf", "", 1, []string{
			"The Crazy Ones",
			"The round pegs in the square holes.",
			"The misfits. The rebels. The troublemakers.",
		}},
	} {
		for engine, setting := range engines(t) {
			t.Run(tc.file+"/"+engine, func(t *testing.T) {
				doc, err := pdf.Read(context.Background(), fixture(t, tc.file), &pdf.Options{Pdftotext: setting})
				if err != nil {
					t.Fatal(err)
				}
				if doc.Engine != engine {
					t.Errorf("engine = %q", doc.Engine)
				}
				if doc.Title != tc.title || doc.Pages != tc.pages || doc.PagesRead != tc.pages || doc.Truncated {
					t.Errorf("title %q, pages %d, read %d, truncated %v; want %q, %d", doc.Title, doc.Pages, doc.PagesRead, doc.Truncated, tc.title, tc.pages)
				}
				if got := len(doc.PageTexts()); got != tc.pages {
					t.Errorf("%d page texts", got)
				}
				text := words(doc.Text)
				for _, w := range tc.want {
					if !strings.Contains(text, w) {
						t.Errorf("lacks %q in\n%s", w, doc.Text)
					}
				}
			})
		}
	}
}

func TestRead_MaxPagesReadsTheFirstPagesAndCountsAll(t *testing.T) {
	for engine, setting := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			doc, err := pdf.Read(context.Background(), fixture(t, "pdflatex-4-pages.pdf"), &pdf.Options{Pdftotext: setting, MaxPages: 2})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Pages != 4 || doc.PagesRead != 2 || !doc.Truncated || len(doc.PageTexts()) != 2 {
				t.Errorf("pages %d, read %d, truncated %v, %d page texts", doc.Pages, doc.PagesRead, doc.Truncated, len(doc.PageTexts()))
			}
		})
	}
}

func TestRead_GeneratedDocumentKeepsPagesTitleAndSpecialCharacters(t *testing.T) {
	data := buildPDF(pdfSpec{title: "A & B", pages: []string{"First page: a < b & c > d.\nSecond line.", "Second page."}})
	for engine, setting := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			doc, err := pdf.Read(context.Background(), data, &pdf.Options{Pdftotext: setting})
			if err != nil {
				t.Fatal(err)
			}
			want := "First page: a < b & c > d.\nSecond line." + pdf.PageBreak + "Second page."
			if doc.Title != "A & B" || doc.Pages != 2 || doc.Text != want {
				t.Errorf("title %q, pages %d, text %q; want %q", doc.Title, doc.Pages, doc.Text, want)
			}
		})
	}
}

// Every hostile document ends in a typed error (or a bounded result)
// within the timeout, never in a panic.
func TestRead_HostileDocumentsFailTypedWithinTheBound(t *testing.T) {
	valid := fixture(t, "pdflatex-4-pages.pdf")
	bomb := []byte("BT /F1 1 Tf " + strings.Repeat("(a) Tj 0.01 0 Td ", 1<<20) + "ET")
	for _, tc := range []struct {
		name string
		data []byte
		// want is the error kind, nil when a bounded result is fine.
		want    error
		goOnly  bool
		maxTime time.Duration
	}{
		{name: "empty", data: nil, want: pdf.ErrNotPDF},
		{name: "html", data: []byte("<!doctype html><p>not a pdf"), want: pdf.ErrNotPDF},
		{name: "garbage after a header", data: append([]byte("%PDF-1.7\n"), bytes256k()...), want: pdf.ErrMalformed},
		{name: "truncated", data: valid[:len(valid)/2], want: pdf.ErrMalformed},
		{name: "encrypted", data: fixture(t, "libreoffice-writer-password.pdf"), want: pdf.ErrEncrypted},
		{name: "too large", data: append([]byte("%PDF-1.4\n"), make([]byte, pdf.MaxInput)...), want: pdf.ErrTooLarge},
		{name: "huge page count claimed", data: buildPDF(pdfSpec{pages: []string{"only page"}, count: 1_000_000_000})},
		{name: "page tree loops", data: buildPDF(pdfSpec{pages: []string{"a page"}, loopKids: true})},
		{name: "object stream inside itself", data: xrefStreamPDF([][3]int{{0, 0, 65535}, {2, 2, 0}, {2, 2, 1}}, 4), want: pdf.ErrMalformed, goOnly: true},
		{name: "huge object count", data: xrefStreamPDF([][3]int{{0, 0, 65535}}, 1<<40), want: pdf.ErrMalformed, goOnly: true},
		{name: "huge cross-reference section", data: []byte("%PDF-1.4\n1 0 obj\n<< >>\nendobj\nxref\n4000000000 1\n0000000009 00000 n \ntrailer\n<< /Size 4000000001 /Root 1 0 R >>\nstartxref\n30\n%%EOF\n"), want: pdf.ErrMalformed, goOnly: true},
		{name: "content bomb", data: buildPDF(pdfSpec{pages: []string{""}, content: bomb}), maxTime: 4 * time.Second},
	} {
		for engine, setting := range engines(t) {
			if tc.goOnly && engine != pdf.EngineGo {
				continue
			}
			t.Run(tc.name+"/"+engine, func(t *testing.T) {
				timeout := 2 * time.Second
				start := time.Now()
				doc, err := pdf.Read(context.Background(), tc.data, &pdf.Options{Pdftotext: setting, Timeout: timeout})
				elapsed := time.Since(start)
				limit := tc.maxTime
				if limit == 0 {
					limit = timeout + 2*time.Second
				}
				if elapsed > limit {
					t.Errorf("took %v", elapsed)
				}
				if err != nil {
					var pe *pdf.Error
					if !errors.As(err, &pe) {
						t.Fatalf("error %T is not a *pdf.Error: %v", err, err)
					}
				}
				switch {
				case tc.want != nil && !errors.Is(err, tc.want):
					t.Errorf("error = %v, want %v", err, tc.want)
				case tc.want == nil && err != nil && !errors.Is(err, pdf.ErrTimeout) && !errors.Is(err, pdf.ErrNoText) && !errors.Is(err, pdf.ErrMalformed):
					t.Errorf("error = %v", err)
				case tc.want == nil && err == nil && doc.Pages > 10:
					t.Errorf("pages = %d: the claimed count was believed", doc.Pages)
				}
			})
		}
	}
}

func bytes256k() []byte {
	b := make([]byte, 256<<10)
	for i := range b {
		b[i] = byte(i*7919 + i>>3)
	}
	return b
}

func TestRead_ContextCancelledIsATimeout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for engine, setting := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			_, err := pdf.Read(ctx, fixture(t, "multicolumn.pdf"), &pdf.Options{Pdftotext: setting})
			if !errors.Is(err, pdf.ErrTimeout) {
				t.Errorf("error = %v", err)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	f.Add(buildPDF(pdfSpec{title: "t", pages: []string{"one", "two"}}))
	f.Add(xrefStreamPDF([][3]int{{0, 0, 65535}, {2, 2, 0}}, 3))
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 1 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"))
	for _, name := range []string{"habibi.pdf", "002-trivial-libre-office-writer.pdf"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		// A read that outlives its timeout by far crashes the run, so that
		// the fuzzer keeps the input.
		watchdog := time.AfterFunc(20*time.Second, func() { panic("a read ignored its timeout") })
		defer watchdog.Stop()
		doc, err := pdf.Read(context.Background(), data, &pdf.Options{Pdftotext: "off", Timeout: time.Second})
		if err != nil {
			var pe *pdf.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *pdf.Error: %v", err, err)
			}
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
		if len(doc.Text) > pdf.MaxText {
			t.Errorf("%d bytes of text", len(doc.Text))
		}
	})
}

// A font whose ToUnicode CMap is a Flate bomb — 16 MiB of numbers, each
// of which the parser would keep on its stack until the CMap ends — is
// not interpreted past the bound: the pure-Go reader reads the page
// without it, allocating megabytes rather than gigabytes.
func TestRead_GoReaderBoundsToUnicodeCMaps(t *testing.T) {
	cmap := repeatedZlib([]byte("/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"), []byte("1 "), []byte("endcmap\n"), 16<<20)
	data := buildPDF(pdfSpec{pages: []string{"Thin ice near the weir."}, toUnicode: cmap})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	doc, err := pdf.Read(context.Background(), data, &pdf.Options{Pdftotext: "off", Timeout: 2 * time.Minute})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if !strings.Contains(doc.Text, "Thin ice near the weir.") {
		t.Errorf("text = %q", doc.Text)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("the read allocated %d MiB", alloc>>20)
	}
}

// An object stream that inflates to 64 MiB — an object of millions of
// elements, each of which the parser would keep — is refused before the
// parser reads it, however its filters are chained; a small one is read.
func TestRead_GoReaderRefusesObjectStreamBombs(t *testing.T) {
	head := []byte("2 0\n<< /Type /Pages /Count 1 /Kids [")
	small := repeatedZlib(head, []byte("1 "), []byte("] >>"), 0)
	bomb := repeatedZlib(head, []byte("1 "), []byte("] >>"), 64<<20)
	a85 := make([]byte, ascii85.MaxEncodedLen(len(bomb)))
	a85 = append(a85[:ascii85.Encode(a85, bomb)], "~>"...)
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"small", objStmPDF(small, "/FlateDecode", 4), pdf.ErrNoText},
		{"bomb", objStmPDF(bomb, "/FlateDecode", 4), pdf.ErrMalformed},
		{"bomb in ASCII85", objStmPDF(a85, "[/ASCII85Decode /FlateDecode]", 4), pdf.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := pdf.Read(context.Background(), tc.data, &pdf.Options{Pdftotext: "off", Timeout: 2 * time.Minute})
			runtime.ReadMemStats(&after)
			if !errors.Is(err, tc.want) {
				t.Errorf("error = %v, want %v", err, tc.want)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("the read allocated %d MiB", alloc>>20)
			}
		})
	}
}
