package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/hooks/worker"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/routing"
)

// The cache of a configuration file ([LoadOptions.Cache]) holds what the
// file sets, converted and checked, and the problems found in it: what
// parsing the file would give again, since that depends on nothing but the
// file's content, its path and the program. Each entry is keyed by all
// three: the file's path and the program's identity (its executable's
// path, size, modification time and inode) name the cache file, and the
// entry records them with the file's identity (device, inode, size,
// modification and change times), checked against the file opened at each
// load, so that a hit does not even read the file. Any write to the file
// changes its change time, which no one but the system can set; a file
// changed within [cacheRacyWindow] of the load that would cache it is not
// cached, so that two writes within one tick of the file system's clock
// cannot go unnoticed (as Git does for its index). The environment is
// applied afresh over the entry each time, and key files, docs and routes
// files are read afresh.
//
// A cache file is a regular file of the user's, mode 0600, in a directory
// of the user's, mode 0700, opened without following symbolic links and
// ignored unless all of that holds; a CRC-32 of its content tells a torn
// file. An entry older than [cacheMaxAge] is ignored and rewritten.
// Entries never hold a key: when the file sets a key inline, the load is
// not cached.

const (
	// cacheFormat changes whenever the entry's layout or meaning does.
	cacheFormat = 1
	// cacheMaxAge bounds how long an entry is used.
	cacheMaxAge = 24 * time.Hour
	// cacheMaxBytes bounds the size of a cache file read.
	cacheMaxBytes = 16 << 20
	// cacheDirName is the cache's directory in the state directory.
	cacheDirName = "config-cache"
)

// cacheRacyWindow is how long after a file's last change its load is not
// cached (tests set it to 0).
var cacheRacyWindow = 2 * time.Second

// cacheMagic starts every cache file; a CRC-32 (IEEE) of the rest follows
// it, so that a torn file is ignored.
var cacheMagic = []byte("webgate-config-cache\n")

// fileCache is the cache of one configuration file for this program.
type fileCache struct {
	dir, name string
	path      string
	program   string
	file      fileIdentity
	now       time.Time
}

// cacheNow is the clock of the cache (tests move it).
var cacheNow = time.Now

// programIdentity identifies the running program's executable (tests
// replace it).
var programIdentity = func() (string, bool) {
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%s|%d|%d|%d", exe, fi.Size(), fi.ModTime().UnixNano(), worker.FileIno(fi)), true
}

// openCache returns the cache of the configuration file at path, which fi
// describes, or nil when there is no state directory or no way to identify
// the file or the program.
func (l *loader) openCache(path string, fi os.FileInfo) *fileCache {
	if !cacheSupported {
		return nil
	}
	state := ""
	stateDir, _ := settingByKey("state_dir")
	if v, ok := l.lookup(stateDir.Env); ok {
		state = expandHome(strings.TrimSpace(v), l.home)
	} else {
		state = l.stateDir()
	}
	if state == "" || !filepath.IsAbs(state) {
		return nil
	}
	program, ok := programIdentity()
	if !ok {
		return nil
	}
	file, ok := identify(fi)
	if !ok {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	id := sha256.Sum256([]byte(abs + "\x00" + program))
	return &fileCache{
		dir:     filepath.Join(state, cacheDirName),
		name:    hex.EncodeToString(id[:12]) + ".cache",
		path:    abs,
		program: program,
		file:    file,
		now:     cacheNow(),
	}
}

// An entry is, after cacheMagic and the checksum: the format, the
// program, the path, the file's identity, the time written, the problems
// (key, source, message) and the values (key, origin, encoded value; see
// [appendPlain]), each string and list preceded by its length.

// load returns the layer the entry holds for the file, or nil when there
// is no valid entry for it. The tables in skip are not decoded.
func (c *fileCache) load(skip map[string]bool) *layer {
	body, ok := readCacheFile(c.dir, c.name)
	if !ok {
		return nil
	}
	// Every string read is a piece of body.
	r := &plainReader{b: body, ok: true}
	if r.uvarint() != cacheFormat || r.string() != c.program || r.string() != c.path || r.string() != c.file.String() {
		return nil
	}
	written := time.Unix(0, r.varint())
	if !r.ok || c.now.Sub(written) > cacheMaxAge || written.After(c.now.Add(time.Minute)) {
		return nil
	}
	ly := &layer{}
	for n := r.uvarint(); n > 0 && r.ok; n-- {
		ly.problem(r.string(), r.string(), r.string(), nil)
	}
	for n := r.uvarint(); n > 0 && r.ok; n-- {
		key, origin, blob := r.string(), r.string(), r.string()
		s, known := settingByKey(key)
		if !r.ok || !known {
			return nil
		}
		if skip[key] {
			continue
		}
		v, ok := readPlain(blob, s.typ)
		if !ok {
			return nil
		}
		ly.set(key, v, origin)
	}
	if !r.ok || len(r.b) != 0 {
		return nil
	}
	return ly
}

// store writes ly, parsed from the file, as the entry. It writes nothing
// when ly sets a key inline, or when the file changed within
// cacheRacyWindow.
func (c *fileCache) store(ly *layer) {
	if c.file.changedWithin(c.now, cacheRacyWindow) {
		return
	}
	b := binary.AppendUvarint(nil, cacheFormat)
	b = appendString(b, c.program)
	b = appendString(b, c.path)
	b = appendString(b, c.file.String())
	b = binary.AppendVarint(b, c.now.UnixNano())
	b = binary.AppendUvarint(b, uint64(len(ly.problems)))
	for _, p := range ly.problems {
		b = appendString(appendString(appendString(b, p.Key), p.Source), p.Message)
	}
	b = binary.AppendUvarint(b, uint64(len(ly.values)))
	for _, v := range ly.values {
		if s, _ := settingByKey(v.key); s.Kind == KindKeys {
			if spec := v.value.Interface().(KeySpec); strings.TrimSpace(string(spec)) != "" && !provider.IsKeyPath(strings.TrimSpace(string(spec))) {
				return // a key: never written
			}
		}
		blob, ok := appendPlain(nil, v.value)
		if !ok {
			return
		}
		b = appendString(appendString(b, v.key), v.origin)
		b = appendString(b, string(blob))
	}
	out := make([]byte, 0, len(cacheMagic)+4+len(b))
	out = binary.LittleEndian.AppendUint32(append(out, cacheMagic...), crc32.ChecksumIEEE(b))
	out = append(out, b...)
	_ = writeCacheFile(c.dir, c.name, out, c.now)
}

// readCacheFile returns the content of the cache file name in dir after
// its magic and checksum, when they are right. It reads the file straight
// into the string it returns, checksumming as it goes: a cache of a
// thousand routes is some 120 KB, not worth copying twice.
func readCacheFile(dir, name string) (string, bool) {
	f, size, err := openCacheFile(dir, name)
	if err != nil {
		return "", false
	}
	defer f.Close()
	head := make([]byte, len(cacheMagic)+4)
	if _, err := io.ReadFull(f, head); err != nil || !bytes.HasPrefix(head, cacheMagic) {
		return "", false
	}
	var body strings.Builder
	body.Grow(int(size) - len(head))
	buf := make([]byte, 16<<10)
	var sum uint32
	for {
		n, err := f.Read(buf)
		sum = crc32.Update(sum, crc32.IEEETable, buf[:n])
		body.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil || body.Len() > cacheMaxBytes {
			return "", false
		}
	}
	if sum != binary.LittleEndian.Uint32(head[len(cacheMagic):]) {
		return "", false
	}
	return body.String(), true
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendPlain appends an encoding of v, a value made of strings, booleans,
// integers, pointers, slices and structs of exported fields; it reports
// false for anything else. A nil slice or pointer and an empty one encode
// differently, so that [readPlain] returns an equal value.
func appendPlain(b []byte, v reflect.Value) ([]byte, bool) {
	switch v.Kind() {
	case reflect.String:
		return appendString(b, v.String()), true
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1), true
		}
		return append(b, 0), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int()), true
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 0), true
		}
		return appendPlain(append(b, 1), v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			return append(b, 0), true
		}
		b = binary.AppendUvarint(b, uint64(v.Len())+1)
		for i := range v.Len() {
			var ok bool
			if b, ok = appendPlain(b, v.Index(i)); !ok {
				return b, false
			}
		}
		return b, true
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				return b, false
			}
			var ok bool
			if b, ok = appendPlain(b, v.Field(i)); !ok {
				return b, false
			}
		}
		return b, true
	}
	return b, false
}

// readPlain decodes a value of type t that [appendPlain] encoded as b.
// The strings of the value are pieces of b.
func readPlain(b string, t reflect.Type) (reflect.Value, bool) {
	r := &plainReader{b: b, ok: true}
	var v reflect.Value
	switch {
	case t == toolRoutesType && plainLayoutsMatch():
		v = reflect.ValueOf(r.toolRoutes())
	case t == databasesType && plainLayoutsMatch():
		v = reflect.ValueOf(r.databases())
	default:
		v = reflect.New(t).Elem()
		r.value(v)
	}
	return v, r.ok && len(r.b) == 0
}

// The lists of tables, the bulk of a large configuration, are decoded
// without reflection, several times faster. plainLayoutsMatch checks that
// their types still have the fields the decoders read, in that order;
// when they do not, the reflective decoder is used.
var (
	toolRoutesType    = reflect.TypeFor[[]routing.ToolRoute]()
	databasesType     = reflect.TypeFor[[]routing.Database]()
	plainLayoutsMatch = sync.OnceValue(func() bool {
		return layout[routing.ToolRoute]() == "Name string, Tool string, Pattern string, Message string, Tests []routing.RouteTest" &&
			layout[routing.RouteTest]() == "Input string, Expect string, Contains string" &&
			layout[routing.Database]() == "Keywords []string, Path string, MCPToolName string, Description string"
	})
)

// layout lists the fields of struct type T with their types.
func layout[T any]() string {
	t := reflect.TypeFor[T]()
	fields := make([]string, t.NumField())
	for i := range fields {
		fields[i] = t.Field(i).Name + " " + t.Field(i).Type.String()
	}
	return strings.Join(fields, ", ")
}

// count reads a slice's length, as appendPlain writes it: 0 for nil, n+1
// for n elements. It reports false for nil.
func (r *plainReader) count() (int, bool) {
	n := r.uvarint()
	if n == 0 || !r.ok {
		return 0, false
	}
	if n-1 > uint64(len(r.b)) { // every element takes a byte at least
		r.ok = false
		return 0, false
	}
	return int(n - 1), true
}

func (r *plainReader) toolRoutes() []routing.ToolRoute {
	return readList(r, func(rt *routing.ToolRoute) {
		rt.Name, rt.Tool, rt.Pattern, rt.Message = r.string(), r.string(), r.string(), r.string()
		rt.Tests = readList(r, func(tc *routing.RouteTest) {
			tc.Input, tc.Expect, tc.Contains = r.string(), r.string(), r.string()
		})
	})
}

func (r *plainReader) databases() []routing.Database {
	return readList(r, func(d *routing.Database) {
		d.Keywords = readList(r, func(k *string) { *k = r.string() })
		d.Path, d.MCPToolName, d.Description = r.string(), r.string(), r.string()
	})
}

// readList reads a slice as appendPlain writes it, each element by read;
// nil for a nil slice.
func readList[T any](r *plainReader, read func(*T)) []T {
	n, ok := r.count()
	if !ok {
		return nil
	}
	out := make([]T, n)
	for i := range out {
		read(&out[i])
	}
	return out
}

// plainReader reads what appendPlain and store write. Once a read fails,
// ok is false and every later read returns a zero value.
type plainReader struct {
	b  string
	ok bool
}

// uvarint reads an unsigned varint (encoding/binary's encoding).
func (r *plainReader) uvarint() uint64 {
	var v uint64
	for i := 0; i < len(r.b) && i < binary.MaxVarintLen64; i++ {
		c := r.b[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // overflow
			}
			r.b = r.b[i+1:]
			return v | uint64(c)<<(7*i)
		}
		v |= uint64(c&0x7f) << (7 * i)
	}
	r.ok = false
	return 0
}

// varint reads a signed varint (encoding/binary's zig-zag encoding).
func (r *plainReader) varint() int64 {
	u := r.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

func (r *plainReader) bytes(n int) string {
	if !r.ok || n < 0 || n > len(r.b) {
		r.ok = false
		return ""
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *plainReader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.ok = false
		return ""
	}
	return r.bytes(int(n))
}

// value decodes into v, which is settable and zero.
func (r *plainReader) value(v reflect.Value) {
	if !r.ok {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(r.string())
	case reflect.Bool:
		if b := r.bytes(1); r.ok {
			v.SetBool(b[0] == 1)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := r.varint()
		if v.OverflowInt(n) {
			r.ok = false
			return
		}
		v.SetInt(n)
	case reflect.Pointer:
		if b := r.bytes(1); r.ok && b[0] == 1 {
			p := reflect.New(v.Type().Elem())
			r.value(p.Elem())
			v.Set(p)
		}
	case reflect.Slice:
		n := r.uvarint()
		if n == 0 {
			return
		}
		if n-1 > uint64(len(r.b)) { // every element takes a byte at least
			r.ok = false
			return
		}
		s := reflect.MakeSlice(v.Type(), int(n-1), int(n-1))
		for i := range int(n - 1) {
			r.value(s.Index(i))
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				r.ok = false
				return
			}
			r.value(v.Field(i))
		}
	default:
		r.ok = false
	}
}
