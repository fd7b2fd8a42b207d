// Package pdf reads the text of PDF documents locally, with no network
// and no key: the title, the page count and the text of each page, in
// reading order ([Read]).
//
// Two engines do the reading. When the pdftotext program of
// poppler-utils is installed (or named in [Options]), it reads the
// document: it handles the widest range of real documents. It runs in its
// own process group, with no environment, the document on its standard
// input, its address space capped before it sees the document (on Linux;
// Options.MaxMemoryBytes, [DefaultMaxMemoryBytes]), its output capped, and
// the whole group killed when the output passes the cap or the deadline
// passes. A document that makes it run out of memory is read by the
// pure-Go reader instead. Otherwise, or when Options.Pdftotext is "off", a pure-Go reader
// built on github.com/ledongthuc/pdf does it, so that binaries built
// without cgo and without poppler still read PDFs.
//
// Every document is untrusted. Before the pure-Go parser sees a file, its
// cross-reference data is checked for object counts larger than the file
// can hold and for object streams said to be inside object streams, and
// its object streams for what they inflate to (which would make the
// parser allocate or recurse without bound); the parser then reads the
// file through a reader that stops it when the deadline passes, every
// panic is recovered, the page tree walk is bounded and ignores the page
// count a file claims, each page's content is interpreted from a capped
// stream, and the fonts' ToUnicode CMaps are interpreted within a budget
// per document. Failures are [*Error] values whose
// Kind says what went wrong.
package pdf
