package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"runtime"
	"strings"

	lpdf "github.com/ledongthuc/pdf"
)

// Bounds of the pure-Go reader.
const (
	// maxPageNodes is how many nodes of the page tree are visited (to
	// count the pages, and against loops in the tree).
	maxPageNodes = 100_000
	// maxContent is how many bytes of one page's decompressed content
	// stream are interpreted.
	maxContent = 16 << 20
	// maxTreeDepth is how deep the page tree may nest.
	maxTreeDepth = 64
	// maxCMaps is how many bytes of decompressed ToUnicode CMaps one
	// document may have interpreted, all fonts together. The parser keeps
	// every token of a CMap on a stack until the CMap ends, about 24
	// times its size in memory, so a small compressed CMap could
	// otherwise take gigabytes. The largest real CMaps (CJK fonts of
	// 65,536 glyphs) are under a megabyte.
	maxCMaps = 4 << 20
)

// errAbort is raised, as a panic, inside the parser when the deadline
// passes; it passes for a runtime error so that no recover of the parser
// mistakes it for a malformed operand and carries on.
type errAbort struct{}

func (errAbort) Error() string { return "deadline passed" }
func (errAbort) RuntimeError() {}

var _ runtime.Error = errAbort{}

// guardedReader serves the document to the parser and aborts it, by
// panicking, once ctx has ended: every loop of the parser that reads
// stops there.
type guardedReader struct {
	ctx  context.Context
	data []byte
}

func (g *guardedReader) ReadAt(p []byte, off int64) (int, error) {
	if g.ctx.Err() != nil {
		panic(errAbort{})
	}
	if off < 0 || off >= int64(len(g.data)) {
		return 0, io.EOF
	}
	n := copy(p, g.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// guard runs fn and turns a panic in it into an error: errAbort into
// ErrTimeout, anything else into ErrMalformed.
func guard(ctx context.Context, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(errAbort); ok || ctx.Err() != nil {
				err = &Error{Kind: ErrTimeout, Engine: EngineGo, Err: context.Cause(ctx)}
				return
			}
			err = &Error{Kind: ErrMalformed, Engine: EngineGo, Err: fmt.Errorf("%v", r)}
		}
	}()
	return fn()
}

// openGo opens data with the pure-Go parser after checking its structure.
func openGo(ctx context.Context, data []byte) (*lpdf.Reader, error) {
	if err := checkStructure(data); err != nil {
		return nil, &Error{Kind: ErrMalformed, Engine: EngineGo, Err: err}
	}
	r, err := lpdf.NewReader(&guardedReader{ctx: ctx, data: normalizeHeader(data)}, int64(len(data)))
	switch {
	case ctx.Err() != nil:
		return nil, &Error{Kind: ErrTimeout, Engine: EngineGo, Err: context.Cause(ctx)}
	case errors.Is(err, lpdf.ErrInvalidPassword):
		return nil, &Error{Kind: ErrEncrypted, Engine: EngineGo, Err: err}
	case err != nil && encrypted(data):
		return nil, &Error{Kind: ErrEncrypted, Engine: EngineGo, Err: err}
	case err != nil:
		return nil, &Error{Kind: ErrMalformed, Engine: EngineGo, Err: err}
	}
	return r, nil
}

// normalizeHeader returns data as the parser accepts it: it knows PDF 1.0
// to 1.7 only and wants a line end after the version, so a PDF 2.0 header
// is presented as 1.7 (the parser reads both alike).
func normalizeHeader(data []byte) []byte {
	if len(data) < 9 || !bytes.HasPrefix(data, []byte("%PDF-")) {
		return data
	}
	if data[5] == '1' && data[6] == '.' && data[7] >= '0' && data[7] <= '7' && (data[8] == '\r' || data[8] == '\n') {
		return data
	}
	out := bytes.Clone(data)
	copy(out[5:8], "1.7")
	if out[8] != '\r' && out[8] != '\n' {
		out[8] = '\n'
	}
	return out
}

// readGo reads a document with the pure-Go parser.
func readGo(ctx context.Context, data []byte, maxPages int) (Document, error) {
	doc := Document{Engine: EngineGo}
	r, err := openGo(ctx, data)
	if err != nil {
		return doc, err
	}
	err = guard(ctx, func() error {
		doc.Title = strings.Join(strings.Fields(r.Trailer().Key("Info").Key("Title").Text()), " ")
		pages, total := collectPages(r, maxPages)
		doc.Pages = total
		var b strings.Builder
		cmaps := int64(maxCMaps)
		for i, p := range pages {
			if i > 0 {
				b.WriteString(PageBreak)
			}
			if b.Len() > MaxText {
				doc.Truncated = true
				break
			}
			b.WriteString(safePageText(ctx, p, &cmaps))
			doc.PagesRead = i + 1
		}
		if doc.PagesRead < doc.Pages {
			doc.Truncated = true
		}
		doc.Text = cleanText(b.String())
		return nil
	})
	if err != nil {
		return Document{Engine: EngineGo}, err
	}
	return doc, nil
}

// objectID returns the number and generation of the indirect object a
// value was read from, which the parser keeps in an unexported field; ok
// is false for a direct object or when the field cannot be read.
func objectID(v lpdf.Value) (id uint64, ok bool) {
	ptr := reflect.ValueOf(v).FieldByName("ptr")
	if !ptr.IsValid() || ptr.Kind() != reflect.Struct {
		return 0, false
	}
	num, gen := ptr.FieldByName("id"), ptr.FieldByName("gen")
	if !num.IsValid() || !gen.IsValid() || !num.CanUint() || !gen.CanUint() {
		return 0, false
	}
	if num.Uint() == 0 && gen.Uint() == 0 {
		return 0, false
	}
	return num.Uint()<<16 | gen.Uint(), true
}

// pageCount returns how many pages the document has, as the pure-Go
// parser finds them, or 0 when it cannot tell.
func pageCount(ctx context.Context, data []byte) int {
	r, err := openGo(ctx, data)
	if err != nil {
		return 0
	}
	n := 0
	_ = guard(ctx, func() error {
		_, n = collectPages(r, 0)
		return nil
	})
	return n
}

// collectPages walks the page tree in order: it returns the first max
// pages and how many pages it found in all. The walk visits at most
// maxPageNodes nodes and maxTreeDepth levels, so a tree that loops or
// claims more pages than it has costs nothing more. The /Count a tree
// claims is not believed.
func collectPages(r *lpdf.Reader, max int) ([]lpdf.Page, int) {
	type item struct {
		v     lpdf.Value
		depth int
	}
	var pages []lpdf.Page
	total, visited := 0, 0
	seen := map[uint64]bool{}
	stack := []item{{r.Trailer().Key("Root").Key("Pages"), 0}}
	for len(stack) > 0 && visited < maxPageNodes {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		visited++
		if id, ok := objectID(it.v); ok {
			if seen[id] {
				continue // a node met twice: the tree loops or shares a kid
			}
			seen[id] = true
		}
		kids := it.v.Key("Kids")
		if it.v.Key("Type").Name() == "Page" || kids.Kind() != lpdf.Array {
			if it.v.Kind() == lpdf.Dict {
				total++
				if len(pages) < max {
					pages = append(pages, lpdf.Page{V: it.v})
				}
			}
			continue
		}
		if it.depth >= maxTreeDepth {
			continue
		}
		for i := min(kids.Len(), maxPageNodes) - 1; i >= 0; i-- {
			stack = append(stack, item{kids.Index(i), it.depth + 1})
		}
	}
	return pages, total
}

// safePageText is pageText, with a page the parser cannot read given as
// empty rather than failing the document.
func safePageText(ctx context.Context, p lpdf.Page, cmaps *int64) (text string) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(errAbort); ok {
				panic(r)
			}
			text = ""
		}
	}()
	return pageText(ctx, p, cmaps)
}

// pageText extracts the text of one page; cmaps is how many bytes of
// ToUnicode CMaps may still be interpreted, and is spent.
func pageText(ctx context.Context, p lpdf.Page, cmaps *int64) string {
	contents := p.V.Key("Contents")
	var streams []lpdf.Value
	switch contents.Kind() {
	case lpdf.Stream:
		streams = append(streams, contents)
	case lpdf.Array:
		for i := 0; i < min(contents.Len(), 1000); i++ {
			streams = append(streams, contents.Index(i))
		}
	}
	t := &textState{ctx: ctx, page: p, fonts: map[string]*fontInfo{}, cmaps: cmaps}
	t.reset()
	budget := int64(maxContent)
	for _, s := range streams {
		if s.Kind() != lpdf.Stream || budget <= 0 {
			continue
		}
		lr := &io.LimitedReader{R: s.Reader(), N: budget}
		t.run(lr)
		budget = lr.N
	}
	return t.out.String()
}

// fontInfo is what the text extraction needs of a font.
type fontInfo struct {
	enc     lpdf.TextEncoding
	twoByte bool // Type0 fonts use two-byte codes
	first   int
	widths  []float64 // of codes first, first+1, …
	// cidWidths and defaultWidth are a Type0 font's widths (its
	// descendant font's /W and /DW), by two-byte code.
	cidWidths    map[int]float64
	defaultWidth float64
}

// width returns a code's width in thousandths of the font size, 0 when
// the font does not say.
func (f *fontInfo) width(code int) float64 {
	if f.twoByte {
		if w, ok := f.cidWidths[code]; ok {
			return w
		}
		return f.defaultWidth
	}
	if i := code - f.first; i >= 0 && i < len(f.widths) {
		return f.widths[i]
	}
	return 0
}

// readCIDWidths reads a Type0 font's widths from its descendant font:
// /DW, the default, and /W, a list of "first [w1 w2 …]" and
// "first last w" entries.
func (f *fontInfo) readCIDWidths(font lpdf.Font) {
	desc := font.V.Key("DescendantFonts").Index(0)
	f.defaultWidth = 1000
	if dw := desc.Key("DW"); dw.Kind() == lpdf.Integer || dw.Kind() == lpdf.Real {
		f.defaultWidth = dw.Float64()
	}
	f.cidWidths = map[int]float64{}
	w := desc.Key("W")
	for i := 0; i < min(w.Len(), 65536) && len(f.cidWidths) < 65536; {
		first := int(w.Index(i).Int64())
		next := w.Index(i + 1)
		if next.Kind() == lpdf.Array {
			for j := 0; j < min(next.Len(), 65536); j++ {
				f.cidWidths[first+j] = next.Index(j).Float64()
			}
			i += 2
			continue
		}
		last := int(next.Int64())
		width := w.Index(i + 2).Float64()
		for c := first; c <= last && c-first < 65536 && len(f.cidWidths) < 65536; c++ {
			f.cidWidths[c] = width
		}
		i += 3
	}
}

// matrix is a PDF transformation matrix [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// textState interprets a content stream for its text: it follows the
// text and graphics state far enough to know where each string is drawn,
// and writes the strings with a space between words and a line end
// between lines.
type textState struct {
	ctx   context.Context
	page  lpdf.Page
	fonts map[string]*fontInfo
	out   strings.Builder
	// cmaps is the document's budget of ToUnicode CMap bytes.
	cmaps *int64

	ctm      matrix
	ctmStack []matrix
	tm, tlm  matrix
	font     *fontInfo
	size     float64 // Tfs
	tc, tw   float64
	th       float64
	tl, rise float64

	// Where the last string ended, in device space, and its font size
	// there; started is false before the first string.
	started      bool
	lastX, lastY float64
	lastSize     float64
}

func (t *textState) reset() {
	t.ctm, t.tm, t.tlm, t.th = identity, identity, identity, 1
}

// run interprets one content stream.
func (t *textState) run(r io.Reader) {
	lx := newLexer(r)
	var args []operand
	for n := 0; ; n++ {
		if n%4096 == 0 && t.ctx.Err() != nil {
			panic(errAbort{})
		}
		op, ok := lx.next()
		if !ok {
			return
		}
		if !op.isOperator {
			if len(args) < 64 {
				args = append(args, op)
			}
			continue
		}
		t.do(op.name, args)
		if op.name == "BI" {
			lx.skipInlineImage()
		}
		args = args[:0]
	}
}

// num returns args[i] as a number, 0 when it is not one.
func num(args []operand, i int) float64 {
	if i < len(args) && args[i].kind == kindNumber && !math.IsNaN(args[i].num) && !math.IsInf(args[i].num, 0) {
		return args[i].num
	}
	return 0
}

// do executes one operator.
func (t *textState) do(op string, args []operand) {
	switch op {
	case "q":
		if len(t.ctmStack) < 256 {
			t.ctmStack = append(t.ctmStack, t.ctm)
		}
	case "Q":
		if n := len(t.ctmStack); n > 0 {
			t.ctm, t.ctmStack = t.ctmStack[n-1], t.ctmStack[:n-1]
		}
	case "cm":
		if len(args) == 6 {
			t.ctm = matrix{num(args, 0), num(args, 1), num(args, 2), num(args, 3), num(args, 4), num(args, 5)}.mul(t.ctm)
		}
	case "BT":
		t.tm, t.tlm = identity, identity
	case "Tf":
		if len(args) == 2 && args[0].kind == kindName {
			t.font = t.fontNamed(args[0].str)
			t.size = num(args, 1)
		}
	case "Tc":
		t.tc = num(args, 0)
	case "Tw":
		t.tw = num(args, 0)
	case "Tz":
		t.th = num(args, 0) / 100
	case "TL":
		t.tl = num(args, 0)
	case "Ts":
		t.rise = num(args, 0)
	case "Td":
		t.moveLine(num(args, 0), num(args, 1))
	case "TD":
		t.tl = -num(args, 1)
		t.moveLine(num(args, 0), num(args, 1))
	case "Tm":
		if len(args) == 6 {
			t.tm = matrix{num(args, 0), num(args, 1), num(args, 2), num(args, 3), num(args, 4), num(args, 5)}
			t.tlm = t.tm
		}
	case "T*":
		t.moveLine(0, -t.tl)
	case "Tj":
		if len(args) == 1 {
			t.show(args[0])
		}
	case "'":
		t.moveLine(0, -t.tl)
		if len(args) == 1 {
			t.show(args[0])
		}
	case "\"":
		if len(args) == 3 {
			t.tw, t.tc = num(args, 0), num(args, 1)
			t.moveLine(0, -t.tl)
			t.show(args[2])
		}
	case "TJ":
		if len(args) == 1 && args[0].kind == kindArray {
			for _, e := range args[0].arr {
				switch e.kind {
				case kindString:
					t.show(e)
				case kindNumber:
					t.advance(-e.num / 1000 * t.size * t.th)
				}
			}
		}
	}
}

func (t *textState) moveLine(tx, ty float64) {
	t.tlm = matrix{1, 0, 0, 1, tx, ty}.mul(t.tlm)
	t.tm = t.tlm
}

func (t *textState) advance(tx float64) {
	t.tm = matrix{1, 0, 0, 1, tx, 0}.mul(t.tm)
}

// fontNamed finds a font of the page's resources, once per name; a font
// that cannot be read is nil, and its strings are written as they are.
func (t *textState) fontNamed(name string) (f *fontInfo) {
	if f, ok := t.fonts[name]; ok {
		return f
	}
	if len(t.fonts) > 1000 {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(errAbort); ok {
				panic(r)
			}
			f = nil
		}
		t.fonts[name] = f
	}()
	font := t.page.Font(name)
	f = &fontInfo{twoByte: font.V.Key("Subtype").Name() == "Type0", first: font.FirstChar()}
	if f.twoByte {
		f.readCIDWidths(font)
	} else if w := font.V.Key("Widths"); w.Kind() == lpdf.Array {
		for i := 0; i < min(w.Len(), 65536); i++ {
			f.widths = append(f.widths, w.Index(i).Float64())
		}
	}
	if t.spendCMap(font.V.Key("ToUnicode")) {
		f.enc = font.Encoder()
	}
	return f
}

// spendCMap measures a font's ToUnicode CMap against the document's
// budget, and reports whether the parser may interpret it: a font with
// no CMap, or one that fits, is spent from the budget; a larger one is
// refused and the font's strings are written as they are.
func (t *textState) spendCMap(cmap lpdf.Value) bool {
	if cmap.Kind() != lpdf.Stream {
		return true
	}
	if *t.cmaps <= 0 {
		return false
	}
	n, _ := io.Copy(io.Discard, io.LimitReader(cmap.Reader(), *t.cmaps+1))
	if n > *t.cmaps {
		return false
	}
	*t.cmaps -= n
	return true
}

// show draws one string: it is written after a space or a line end when
// its position says it starts a new word or line.
func (t *textState) show(s operand) {
	if s.kind != kindString {
		return
	}
	raw := s.str
	text := raw
	if t.font != nil && t.font.enc != nil {
		text = t.font.enc.Decode(raw)
	}
	// Where the string starts, in device space, and how big its font is
	// there.
	trm := matrix{t.size * t.th, 0, 0, t.size, 0, t.rise}.mul(t.tm).mul(t.ctm)
	x, y := trm[4], trm[5]
	size := math.Hypot(trm[2], trm[3])
	if size == 0 || math.IsNaN(size) || math.IsInf(size, 0) {
		size = 1
	}
	if t.started && text != "" {
		ref := math.Max(size, t.lastSize)
		dy := math.Abs(y - t.lastY)
		switch {
		case dy > 1.6*ref:
			t.out.WriteString("\n\n")
		case dy > 0.5*ref:
			t.out.WriteString("\n")
		case x-t.lastX > 0.18*ref && !strings.HasPrefix(text, " ") && !strings.HasSuffix(t.out.String(), " "):
			t.out.WriteString(" ")
		}
	}
	if text != "" {
		t.out.WriteString(text)
		t.started = true
	}
	// Advance past the string.
	codes := len(raw)
	step := 1
	if t.font != nil && t.font.twoByte {
		step = 2
	}
	var tx float64
	for i := 0; i+step <= codes; i += step {
		code := int(raw[i])
		if step == 2 {
			code = code<<8 | int(raw[i+1])
		}
		w := 0.0
		if t.font != nil {
			w = t.font.width(code)
		}
		if w == 0 {
			w = 500
		}
		adv := w/1000*t.size + t.tc
		if step == 1 && code == ' ' {
			adv += t.tw
		}
		tx += adv * t.th
	}
	t.advance(tx)
	end := matrix{t.size * t.th, 0, 0, t.size, 0, t.rise}.mul(t.tm).mul(t.ctm)
	if text != "" {
		t.lastX, t.lastY, t.lastSize = end[4], end[5], size
	}
}
