package pdf_test

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// pdfSpec describes a PDF for buildPDF.
type pdfSpec struct {
	title string
	pages []string // each page's lines, "\n"-separated
	// count, when not zero, is the page count the page tree claims.
	count int
	// content, when set, replaces the content stream of every page; it is
	// stored compressed.
	content []byte
	// extra objects appended after the pages, and a trailer addition.
	loopKids bool // the page tree lists itself among its kids
}

// buildPDF writes a small, valid PDF (classic cross-reference table,
// Helvetica text) from spec.
func buildPDF(spec pdfSpec) []byte {
	var objs []string
	n := len(spec.pages)
	var kids []string
	for i := 0; i < n; i++ {
		kids = append(kids, fmt.Sprintf("%d 0 R", 4+2*i))
	}
	if spec.loopKids {
		kids = append(kids, "2 0 R")
	}
	count := n
	if spec.count != 0 {
		count = spec.count
	}
	objs = append(objs,
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), count),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, text := range spec.pages {
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		var content []byte
		if spec.content != nil {
			var z bytes.Buffer
			w := zlib.NewWriter(&z)
			_, _ = w.Write(spec.content)
			_ = w.Close()
			content = z.Bytes()
			objs = append(objs, fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(content), content))
			continue
		}
		var b strings.Builder
		b.WriteString("BT /F1 12 Tf 72 720 Td 14 TL\n")
		for _, line := range strings.Split(text, "\n") {
			line = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(line)
			b.WriteString("(" + line + ") Tj T*\n")
		}
		b.WriteString("ET")
		objs = append(objs, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", b.Len(), b.String()))
	}
	info := 0
	if spec.title != "" {
		objs = append(objs, "<< /Title ("+spec.title+") >>")
		info = len(objs)
	}
	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n")
	var offsets []int
	for i, o := range objs {
		offsets = append(offsets, out.Len())
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", o)
	}
	trailer := fmt.Sprintf("<< /Size %d /Root 1 0 R", len(objs)+1)
	if info != 0 {
		trailer += fmt.Sprintf(" /Info %d 0 R", info)
	}
	fmt.Fprintf(&out, "trailer\n%s >>\nstartxref\n%d\n%%%%EOF\n", trailer, xref)
	return out.Bytes()
}

// xrefStreamPDF writes a PDF whose cross-reference stream holds the given
// entries ({type, field2, field3}, from object 0), with /Size size.
func xrefStreamPDF(entries [][3]int, size int) []byte {
	var out bytes.Buffer
	out.WriteString("%PDF-1.5\n")
	at := out.Len()
	var data []byte
	for _, e := range entries {
		data = append(data, byte(e[0]), byte(e[1]>>24), byte(e[1]>>16), byte(e[1]>>8), byte(e[1]), byte(e[2]>>8), byte(e[2]))
	}
	// The stream's own entry is the last object.
	self := len(entries)
	data = append(data, 1, byte(at>>24), byte(at>>16), byte(at>>8), byte(at), 0, 0)
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	_, _ = w.Write(data)
	_ = w.Close()
	fmt.Fprintf(&out, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream\nendobj\n", self, size, z.Len(), z.Bytes())
	fmt.Fprintf(&out, "startxref\n%d\n%%%%EOF\n", at)
	return out.Bytes()
}
