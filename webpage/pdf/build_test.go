package pdf_test

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
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
	// compressed, when set, replaces the content stream of every page:
	// it is already Flate-compressed.
	compressed []byte
	// toUnicode, when set, is the font's ToUnicode CMap stream, already
	// Flate-compressed; the font then has no /Encoding, so that readers
	// map its codes with the CMap.
	toUnicode []byte
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
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
	if spec.toUnicode != nil {
		// The CMap is the object after the pages.
		font = fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode %d 0 R >>", 4+2*n)
	}
	objs = append(objs,
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), count),
		font)
	for i, text := range spec.pages {
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		var content []byte
		if spec.content != nil || spec.compressed != nil {
			content = spec.compressed
			if content == nil {
				var z bytes.Buffer
				w := zlib.NewWriter(&z)
				_, _ = w.Write(spec.content)
				_ = w.Close()
				content = z.Bytes()
			}
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
	if spec.toUnicode != nil {
		objs = append(objs, fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(spec.toUnicode), spec.toUnicode))
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

// flateBomb returns a zlib stream that inflates to about size bytes of
// text operators, each drawing a long string at one of a few dozen places
// of the page: a few hundred kilobytes that a reader which keeps every
// character it draws turns into gigabytes.
func flateBomb(size int) []byte {
	var pattern bytes.Buffer
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&pattern, "1 0 0 1 %d %d Tm (%s) Tj\n", 20+(i%20)*28, 30+(i/20)*45, bytes.Repeat([]byte{byte('a' + i%26)}, 400))
	}
	return repeatedZlib([]byte("BT /F1 12 Tf\n"), pattern.Bytes(), []byte("ET\n"), size)
}

// repeatedZlib returns a zlib stream of head, pattern repeated to about
// size bytes, and tail. The repeats are cut into chunks of a whole number
// of patterns, at least twice the window, so every chunk after the first
// sees the same window: it is compressed once, with that window as its
// dictionary, and repeated (compressing the whole would take a minute
// under the race detector).
func repeatedZlib(head, pattern, tail []byte, size int) []byte {
	chunk := bytes.Repeat(pattern, (64<<10)/len(pattern)+1)
	window := chunk[len(chunk)-32<<10:]

	deflate := func(dict, data []byte, last bool) []byte {
		var b bytes.Buffer
		w, _ := flate.NewWriterDict(&b, flate.BestCompression, dict)
		_, _ = w.Write(data)
		if last {
			_ = w.Close()
		} else {
			_ = w.Flush()
		}
		return b.Bytes()
	}
	out := []byte{0x78, 0xda} // zlib header: deflate, 32 KiB window, best compression
	out = append(out, deflate(nil, append(bytes.Clone(head), chunk...), false)...)
	sum := adler{1, 0}.add(head).add(chunk)
	again := deflate(window, chunk, false)
	chunkSum := adler{1, 0}.add(chunk)
	for n := len(chunk); n < size; n += len(chunk) {
		out = append(out, again...)
		sum = sum.join(chunkSum, len(chunk))
	}
	out = append(out, deflate(window, tail, true)...)
	sum = sum.add(tail)
	return binary.BigEndian.AppendUint32(out, sum.a|sum.b<<16)
}

// adler is an Adler-32 checksum being computed.
type adler struct{ a, b uint32 }

const adlerMod = 65521

// add runs the checksum over p.
func (s adler) add(p []byte) adler {
	for _, c := range p {
		s.a = (s.a + uint32(c)) % adlerMod
		s.b = (s.b + s.a) % adlerMod
	}
	return s
}

// join returns the checksum of the data of s followed by n bytes whose
// own checksum is t.
func (s adler) join(t adler, n int) adler {
	return adler{
		a: (s.a + t.a + adlerMod - 1) % adlerMod,
		b: uint32((uint64(s.b) + uint64(t.b) + uint64(n%adlerMod)*uint64(s.a+adlerMod-1)) % adlerMod),
	}
}

// objStmPDF writes a PDF whose page tree root, object 2, is stored in an
// object stream (object 3) holding stream, already encoded with filter,
// whose first object starts at first; a cross-reference stream indexes
// them.
func objStmPDF(stream []byte, filter string, first int) []byte {
	var out bytes.Buffer
	out.WriteString("%PDF-1.5\n")
	offsets := map[int]int{}
	offsets[1] = out.Len()
	out.WriteString("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
	offsets[3] = out.Len()
	fmt.Fprintf(&out, "3 0 obj\n<< /Type /ObjStm /N 1 /First %d /Length %d /Filter %s >>\nstream\n%s\nendstream\nendobj\n", first, len(stream), filter, stream)
	offsets[4] = out.Len()
	row := func(typ, f2, f3 int) []byte {
		return []byte{byte(typ), byte(f2 >> 24), byte(f2 >> 16), byte(f2 >> 8), byte(f2), byte(f3 >> 8), byte(f3)}
	}
	var data []byte
	data = append(data, row(0, 0, 65535)...)
	data = append(data, row(1, offsets[1], 0)...)
	data = append(data, row(2, 3, 0)...)
	data = append(data, row(1, offsets[3], 0)...)
	data = append(data, row(1, offsets[4], 0)...)
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	_, _ = w.Write(data)
	_ = w.Close()
	fmt.Fprintf(&out, "4 0 obj\n<< /Type /XRef /Size 5 /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream\nendobj\n", z.Len(), z.Bytes())
	fmt.Fprintf(&out, "startxref\n%d\n%%%%EOF\n", offsets[4])
	return out.Bytes()
}
