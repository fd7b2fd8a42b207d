package pdf_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/webgate-dev/webgate/webpage/pdf"
)

// Read extracts a PDF's title, page count and text; the pages are
// separated by pdf.PageBreak. With Pdftotext "off" the pure-Go reader
// does it, as on a machine without poppler-utils.
func ExampleRead() {
	data := buildPDF(pdfSpec{title: "Field notes", pages: []string{"Ice on the mill river.\nTwelve holes.", "Thin near the weir."}})
	doc, err := pdf.Read(context.Background(), data, &pdf.Options{Pdftotext: "off"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Title, "-", doc.Pages, "pages")
	for i, page := range doc.PageTexts() {
		fmt.Printf("[page %d] %s\n", i+1, strings.ReplaceAll(page, "\n", " / "))
	}
	// Output:
	// Field notes - 2 pages
	// [page 1] Ice on the mill river. / Twelve holes.
	// [page 2] Thin near the weir.
}
