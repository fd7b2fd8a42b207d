// Package sanitize is webgate's single rule for text that came from the
// web (search results, page content, titles, provider error messages) on
// its way to a terminal or to an agent. It uses the standard library only,
// so every binary, the small hook fronts included, can share it.
//
// # The terminal rule
//
// [Text] makes text safe to print on a terminal and to hand to a model:
//
//   - invalid UTF-8 is replaced by U+FFFD (one per run of bad bytes);
//   - escape sequences are removed whole, not only their ESC byte: CSI
//     ("ESC [" … final byte, so no "[31m" is left behind), OSC (window
//     titles, OSC 8 hyperlinks, clipboard writes), DCS, SOS, PM and APC
//     strings up to their terminator (BEL or ST) or the end of the line,
//     and two-character sequences such as "ESC c"; the 8-bit C1 forms of
//     the introducers (U+009B, U+009D, …) likewise;
//   - every other C0 and C1 control character is removed, except newline
//     and tab; a carriage return becomes a line break ("\r\n" and a lone
//     "\r" both become "\n"), so it cannot overwrite a line; DEL and
//     backspace are removed;
//   - bidirectional controls are removed: the embeddings and overrides
//     U+202A–U+202E, the isolates U+2066–U+2069, and the marks U+200E,
//     U+200F and U+061C, which can make text display in another order
//     than it is read;
//   - Unicode tag characters (U+E0000–U+E007F), which are invisible on
//     screen but read by models, are removed.
//
// [Forbidden] reports the runes that never survive [Text]. [Line] applies
// the same rule and then folds the text onto one line, for titles,
// snippets and messages. [URL] accepts a link only when it is an absolute
// http or https URL with a host, no user information, at most [MaxURL]
// bytes, and no white space, control or invisible formatting character;
// every other URL (javascript:, data:, vbscript:, file:, relative, …) is
// refused, and callers drop the result or show it without a link.
//
// # The agent rule: untrusted content
//
// Text from the web may imitate the framing an agent runtime wraps around
// tool results and instructions (a fake "</system-reminder>" closing the
// runtime's own block, a fake "<function_results>"). webgate does not try
// to recognise prompt injections by their wording: a page may say "ignore
// previous instructions" and it is still handed over. Instead, on every
// path to an agent (the hooks and the MCP server):
//
//   - [Agent] applies [Text], then [Neutralize]: every tag-shaped run whose
//     name is one the runtimes use for framing ([FramingTags]: opening or
//     closing, in any letter case, with white space or invisible
//     characters around the name or the slash, with "_" and "-" alike and
//     with any namespace prefix such as "ns:invoke"), and every chat
//     special-token shape such as "<|im_start|>", has its "<" (or a
//     full-width or small look-alike) replaced by "‹" (U+2039). The text
//     stays readable, but it can no longer open or close a real block;
//   - the answer's header labels what follows as untrusted web content
//     ([UntrustedNotice]), so the model treats it as data rather than as
//     instructions from the user or the system.
//
// Human-facing output (webgate search and webgate fetch) gets the
// terminal rule only.
//
// Every function is idempotent (applying it twice gives the same result as
// once) and never panics, whatever the input.
package sanitize
