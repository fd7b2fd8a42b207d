package pdf_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/webpage/pdf"
)

// TestRead_NilOptionsMeansDefaults: a nil *Options reads with the
// defaults (pdftotext when it is on PATH, else the built-in reader).
func TestRead_NilOptionsMeansDefaults(t *testing.T) {
	doc, err := pdf.Read(context.Background(), fixture(t, "pdflatex-4-pages.pdf"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages != 4 || doc.PagesRead != 4 || strings.TrimSpace(doc.Text) == "" {
		t.Fatalf("Read(nil): pages %d, read %d, %d bytes of text", doc.Pages, doc.PagesRead, len(doc.Text))
	}
	if _, err := pdf.Read(context.Background(), []byte("<html></html>"), nil); !errors.Is(err, pdf.ErrNotPDF) {
		t.Fatalf("Read(HTML, nil) = %v, want ErrNotPDF", err)
	}
}
