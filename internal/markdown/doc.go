// Package markdown converts a page's HTML into readable Markdown
// ([ConvertHTML], [Convert]).
//
// Two conversions are offered. The article conversion ([ModeArticle]) finds
// the page's main content with a readability implementation
// (codeberg.org/readeck/go-readability, a port of Mozilla's Readability)
// and converts it with github.com/JohannesKaufmann/html-to-markdown:
// headings, paragraphs, lists, links, code blocks with their language,
// quotes and tables. The structure conversion ([ModeStructure]) keeps what
// a portal, a listing or a docs index is made of — sections with their
// headings, link lists, teasers — and drops the page's chrome. The
// automatic mode ([ModeAuto]) uses the article conversion and turns to the
// structure when readability finds little.
//
// Whatever the mode, the output is safe to hand on: only absolute http and
// https links are emitted (relative links are resolved against the page's
// URL; other schemes keep their text alone), no HTML passes through,
// images are reduced to their alt text, and the result is deterministic.
// The input is bounded ([MaxInput], [MaxElements], [MaxDepth]) so that no
// page costs pathological time.
package markdown
