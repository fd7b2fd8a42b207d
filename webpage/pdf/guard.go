package pdf

import (
	"bytes"
	"compress/zlib"
	"encoding/ascii85"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/webgate-dev/webgate/internal/lazyre"
)

// checkStructure looks at a file's cross-reference data before the
// pure-Go parser reads it, and refuses what would make that parser
// allocate without bound or recurse until the process dies: object counts
// and object numbers larger than the file can hold, an object stream said
// to be stored inside an object stream (a loop the parser follows without
// reading anything, so no deadline can stop it), and object streams that
// inflate past maxObjStm.
func checkStructure(data []byte) error {
	limit := int64(len(data))/2 + 1024
	for _, m := range sizeEntry().FindAllSubmatch(data, -1) {
		if n, err := strconv.ParseInt(string(m[1]), 10, 64); err != nil || n > limit {
			return fmt.Errorf("object count %s is larger than the file can hold", m[1])
		}
	}
	for _, loc := range xrefTable().FindAllIndex(data, -1) {
		if err := checkXrefTable(data[loc[1]:], limit); err != nil {
			return err
		}
	}
	for _, loc := range objStmType().FindAllIndex(data, -1) {
		if err := checkObjStm(data, loc[0]); err != nil {
			return err
		}
	}
	inStream := map[int64]int64{} // object number -> number of its object stream
	for _, loc := range xrefStreamType().FindAllIndex(data, -1) {
		if err := readXrefStream(data, loc[0], limit, inStream); err != nil {
			return err
		}
	}
	for obj, stm := range inStream {
		if _, nested := inStream[stm]; nested || stm == obj {
			return fmt.Errorf("object stream %d is said to be inside an object stream", stm)
		}
	}
	return nil
}

var (
	sizeEntry      = lazyre.New(`/Size\s+(\d{1,19})`)
	xrefTable      = lazyre.New(`(?:^|[^a-z])xref\s`)
	xrefStreamType = lazyre.New(`/Type\s*/XRef\b`)
	objHeader      = lazyre.New(`\d+\s+\d+\s+obj\b`)
	wEntry         = lazyre.New(`/W\s*\[\s*(\d{1,2})\s+(\d{1,2})\s+(\d{1,2})\s*\]`)
	indexEntry     = lazyre.New(`/Index\s*\[([\d\s]*)\]`)
	lengthEntry    = lazyre.New(`/Length\s+(\d{1,12})\s*(\d+\s+R)?`)
	columnsEntry   = lazyre.New(`/Columns\s+(\d{1,4})`)
	predictorEntry = lazyre.New(`/Predictor\s+(\d{1,3})`)
	objStmType     = lazyre.New(`/Type\s*/ObjStm\b`)
	filterEntry    = lazyre.New(`/Filter\s*(\[[^\]]*\]|/[A-Za-z0-9]+)`)
)

// maxObjStm is how many bytes one object stream may inflate to. The
// parser reads an object of an object stream whole, keeping each of its
// elements (about 12 bytes of memory per byte of stream), so an object
// stream that inflates without bound would take the memory the timeout
// allows; real ones hold a few hundred small objects, a few hundred
// kilobytes.
const maxObjStm = 8 << 20

// checkXrefTable checks the subsections of a classic cross-reference
// table, which follows "xref" and ends at "trailer": each "start count"
// header must stay within limit.
func checkXrefTable(rest []byte, limit int64) error {
	if end := bytes.Index(rest, []byte("trailer")); end >= 0 {
		rest = rest[:end]
	}
	fields := bytes.Fields(rest)
	for len(fields) >= 2 {
		start, err1 := strconv.ParseInt(string(fields[0]), 10, 64)
		count, err2 := strconv.ParseInt(string(fields[1]), 10, 64)
		if err1 != nil || err2 != nil {
			return nil
		}
		if start < 0 || count < 0 || start+count > limit {
			return fmt.Errorf("cross-reference section %d %d is larger than the file can hold", start, count)
		}
		skip := 2 + 3*count
		if skip > int64(len(fields)) {
			return nil
		}
		fields = fields[skip:]
	}
	return nil
}

// streamAt finds the stream object whose dictionary holds offset at: it
// returns the dictionary (from the object header to the stream keyword)
// and the stream's raw data; ok is false when there is no such stream.
func streamAt(data []byte, at int) (dict, raw []byte, ok bool) {
	// The dictionary runs from its object header to the stream keyword.
	head := data[:at]
	hdrs := objHeader().FindAllIndex(head[max(0, len(head)-4096):], -1)
	if len(hdrs) == 0 {
		return nil, nil, false
	}
	startDict := max(0, len(head)-4096) + hdrs[len(hdrs)-1][1]
	rel := bytes.Index(data[at:min(len(data), at+4096)], []byte("stream"))
	if rel < 0 {
		return nil, nil, false
	}
	dict = data[startDict : at+rel]
	body := at + rel + len("stream")
	if body < len(data) && data[body] == '\r' {
		body++
	}
	if body < len(data) && data[body] == '\n' {
		body++
	}
	end := bytes.Index(data[body:], []byte("endstream"))
	if end < 0 {
		end = len(data) - body
	}
	if m := lengthEntry().FindSubmatch(dict); m != nil && m[2] == nil {
		if n, err := strconv.Atoi(string(m[1])); err == nil && n >= 0 && n <= end {
			end = n
		}
	}
	return dict, data[body : body+end], true
}

// checkObjStm measures the object stream whose dictionary holds offset
// at: decoded as the parser decodes it (Flate, ASCII85, or both in turn),
// it must not pass maxObjStm bytes. A filter given by reference cannot
// be followed here, so it is refused.
func checkObjStm(data []byte, at int) error {
	dict, raw, ok := streamAt(data, at)
	if !ok {
		return nil
	}
	var r io.Reader = bytes.NewReader(raw)
	if bytes.Contains(dict, []byte("/Filter")) {
		m := filterEntry().FindSubmatch(dict)
		if m == nil {
			return errors.New("an object stream's filter is not written out")
		}
		names := strings.FieldsFunc(string(m[1]), func(c rune) bool {
			return c == '/' || c == '[' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n'
		})
		for _, name := range names {
			switch name {
			case "FlateDecode":
				zr, err := zlib.NewReader(r)
				if err != nil {
					return nil // the parser cannot read it either
				}
				r = zr
			case "ASCII85Decode":
				r = ascii85.NewDecoder(&ascii85Text{r: r})
			default:
				return nil // the parser refuses other filters
			}
		}
	}
	n, _ := io.Copy(io.Discard, io.LimitReader(r, maxObjStm+1))
	if n > maxObjStm {
		return fmt.Errorf("an object stream inflates to more than %d bytes", maxObjStm)
	}
	return nil
}

// ascii85Text passes on the characters of ASCII85 data up to its end
// marker, leaving out white space, as the parser reads it.
type ascii85Text struct {
	r   io.Reader
	end bool
}

func (a *ascii85Text) Read(p []byte) (int, error) {
	if a.end {
		return 0, io.EOF
	}
	n, err := a.r.Read(p)
	out := 0
	for _, c := range p[:n] {
		if c == '~' {
			a.end = true
			return out, io.EOF
		}
		if (c >= '!' && c <= 'u') || c == 'z' {
			p[out] = c
			out++
		}
	}
	return out, err
}

// readXrefStream decodes the cross-reference stream whose dictionary
// holds the /Type /XRef at offset at, and records in inStream every
// object it says is stored in an object stream. A stream it cannot decode
// is skipped: the parser cannot decode it either and fails on its own.
func readXrefStream(data []byte, at int, limit int64, inStream map[int64]int64) error {
	dict, raw, ok := streamAt(data, at)
	if !ok {
		return nil
	}

	w := wEntry().FindSubmatch(dict)
	if w == nil {
		return nil
	}
	var widths [3]int
	for i := range widths {
		widths[i], _ = strconv.Atoi(string(w[i+1]))
	}
	row := widths[0] + widths[1] + widths[2]
	if row == 0 {
		return nil
	}
	var index []int64
	if m := indexEntry().FindSubmatch(dict); m != nil {
		for _, f := range bytes.Fields(m[1]) {
			n, err := strconv.ParseInt(string(f), 10, 64)
			if err != nil {
				return nil
			}
			index = append(index, n)
		}
	} else if m := sizeEntry().FindSubmatch(dict); m != nil {
		n, _ := strconv.ParseInt(string(m[1]), 10, 64)
		index = []int64{0, n}
	}
	entries := int64(0)
	for i := 0; i+1 < len(index); i += 2 {
		if index[i] < 0 || index[i+1] < 0 || index[i]+index[i+1] > limit {
			return fmt.Errorf("cross-reference stream section %d %d is larger than the file can hold", index[i], index[i+1])
		}
		entries += index[i+1]
	}

	var decoded []byte
	switch {
	case bytes.Contains(dict, []byte("/FlateDecode")):
		zr, err := zlib.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil
		}
		decoded, _ = io.ReadAll(io.LimitReader(zr, entries*int64(row+1)+4096))
	case bytes.Contains(dict, []byte("/Filter")):
		return nil
	default:
		decoded = raw
	}
	if m := predictorEntry().FindSubmatch(dict); m != nil && string(m[1]) != "1" {
		// The parser understands PNG "up" rows only, as written here.
		cols := row
		if c := columnsEntry().FindSubmatch(dict); c != nil {
			cols, _ = strconv.Atoi(string(c[1]))
		}
		if cols <= 0 {
			return nil
		}
		var out []byte
		hist := make([]byte, cols+1)
		for len(decoded) >= cols+1 {
			line := decoded[:cols+1]
			decoded = decoded[cols+1:]
			if line[0] != 2 {
				break
			}
			for i, b := range line {
				hist[i] += b
			}
			out = append(out, hist[1:]...)
		}
		decoded = out
	}

	field := func(b []byte) int64 {
		var x int64
		for _, c := range b {
			x = x<<8 | int64(c)
		}
		return x
	}
	for i := 0; i+1 < len(index); i += 2 {
		for n := int64(0); n < index[i+1]; n++ {
			if len(decoded) < row {
				return nil
			}
			e := decoded[:row]
			decoded = decoded[row:]
			typ := int64(1)
			if widths[0] > 0 {
				typ = field(e[:widths[0]])
			}
			if typ == 2 {
				inStream[index[i]+n] = field(e[widths[0] : widths[0]+widths[1]])
			}
		}
	}
	return nil
}
