package setup

import (
	"fmt"
	"os"
	"strings"
)

// Legacy hook scripts of the older Node hooks that webgate replaces.
var legacyScripts = []string{"websearch-custom.cjs", "webfetch-scraper.cjs"}

// hookBinary returns "websearch" or "webfetch" when command runs a
// program named like one of webgate's hook binaries, and "" otherwise; the
// name alone does not make a handler webgate's ([ownHandler] does).
func hookBinary(command string) string {
	first := strings.TrimSpace(command)
	if first == "" {
		return ""
	}
	if first[0] == '"' || first[0] == '\'' {
		if end := strings.IndexByte(first[1:], first[0]); end >= 0 {
			first = first[1 : end+1]
		}
	} else if i := strings.IndexAny(first, " \t"); i >= 0 {
		first = first[:i]
	}
	return hookName(first)
}

func legacyScript(command string) string {
	for _, s := range legacyScripts {
		if strings.Contains(command, s) {
			return s
		}
	}
	return ""
}

type claudeEntry struct {
	event, matcher, bin, path string
	timeout                   int
}

func claudeEntries(o Options) []claudeEntry {
	fetch := "WebFetch"
	if o.BashRoutes {
		fetch = "WebFetch|Bash"
	}
	es := []claudeEntry{
		{"PreToolUse", "WebSearch", "websearch", o.WebSearchBin, o.SearchTimeout},
		{"PreToolUse", fetch, "webfetch", o.WebFetchBin, o.FetchTimeout},
		// When the native WebFetch fails (its domain-safety preflight, a
		// TLS error), the hook reads the page itself.
		{"PostToolUseFailure", "WebFetch", "webfetch", o.WebFetchBin, o.FetchTimeout},
		// With hooks.answer replace (or auto), the answer prepared on
		// PreToolUse replaces the native tool's output, or follows its
		// error. Registered always, so that changing the setting needs no
		// new install; the fronts return at once while it is deny.
		{"PostToolUse", "WebFetch", "webfetch", o.WebFetchBin, o.FetchTimeout},
	}
	// The websearch hook's PostToolUse and PostToolUseFailure entries
	// serve the native WebSearch (the replace answer style) and the MCP
	// search tools (companion and fallback results): one entry each, whose
	// matcher names them all.
	m := toolMatcher(append([]string{"WebSearch"}, o.MCPTools...))
	es = append(es,
		claudeEntry{"PostToolUse", m, "websearch", o.WebSearchBin, o.SearchTimeout},
		claudeEntry{"PostToolUseFailure", m, "websearch", o.WebSearchBin, o.SearchTimeout})
	if o.SessionStart {
		// Every source: startup, resume, clear, compact, and fork (v2.1.214+)
		// or whatever later versions add.
		es = append(es, claudeEntry{"SessionStart", "*", "websearch", o.WebSearchBin, 10})
	}
	return es
}

// toolMatcher returns a Claude Code matcher that fires for each of names.
// Plain names (letters, digits, "_" and "-") are joined with "|": an exact
// list from v2.1.195, and on older versions an unanchored regular
// expression that still matches each name. A name with glob characters
// ("mcp__plugin_*_ccs-websearch__WebSearch", the syntax of the hooks' tool
// names) makes the matcher an anchored regular expression, "^(?:a|b)$", with
// each glob translated; joined as it is, "_*" would mean "any number of
// underscores" and the matcher would never fire for the tool.
func toolMatcher(names []string) string {
	plain := true
	for _, n := range names {
		if !plainName(n) {
			plain = false
		}
	}
	if plain {
		return strings.Join(names, "|")
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = globRegexp(n)
	}
	return "^(?:" + strings.Join(parts, "|") + ")$"
}

// plainName reports whether name holds only the characters Claude Code
// compares exactly in a matcher.
func plainName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// globRegexp translates a path.Match pattern into a JavaScript regular
// expression body: "*" is ".*", "?" is ".", a "[...]" class is kept ("[^...]"
// negates, as in path.Match), "\x" is a literal x, and every other character
// is matched literally.
func globRegexp(glob string) string {
	const special = `\^$.|?*+()[]{}/`
	var b strings.Builder
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '\\':
			if i+1 < len(glob) {
				i++
				if strings.IndexByte(special, glob[i]) >= 0 {
					b.WriteByte('\\')
				}
				b.WriteByte(glob[i])
			}
		case '[':
			i = copyClass(&b, glob, i)
		default:
			if strings.IndexByte(special, c) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

// copyClass copies the character class that opens at s[i] ("[...]") to
// b and returns the index of its closing "]"; a "[" that closes no class
// is written as a literal, `\[`, and i is returned. A class means the same
// in a glob and in a regular expression ("^" negates, "a-z" ranges, "\x"
// escapes), so [globRegexp] and [regexpGlob] both keep it as it is; its
// end is found past any escapes, and a "]" right after the "[" belongs to
// the class.
func copyClass(b *strings.Builder, s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		if s[j] == '\\' {
			j++
		} else if s[j] == ']' && j > i+1 {
			b.WriteString(s[i : j+1])
			return j
		}
	}
	b.WriteString(`\[`)
	return i
}

func handler(bin string, timeout int) *object {
	h := newObject()
	h.set("type", "command")
	h.set("command", bin)
	h.set("args", []any{})
	h.set("timeout", timeout)
	return h
}

// editClaude adds or removes webgate's entries in a Claude Code settings
// object.
func editClaude(root *object, o Options, install bool, p *Plan) {
	var want []groupEntry
	if install {
		for _, e := range claudeEntries(o) {
			h := handler(e.path, e.timeout)
			if o.Gateway != "" {
				if e.event == "SessionStart" {
					// SessionStart takes command hooks only.
					continue
				}
				h = httpHandler(o, e.bin, "timeout", e.timeout)
			}
			want = append(want, groupEntry{e.event, e.bin, e.matcher, h})
		}
		if o.Gateway != "" && o.SessionStart {
			p.Notes = append(p.Notes, "Claude Code's SessionStart takes no HTTP hook: the SessionStart entry is not registered with --gateway.")
		}
	}
	editGroups(root, want, claudeForm, install, true, p)
}

// groupEntry is one handler webgate registers in a settings file whose
// events hold groups of handlers under a matcher (Claude Code, Gemini
// CLI): handler is webgate's handler object as it is written.
type groupEntry struct {
	event, bin, matcher string
	handler             *object
}

// editGroups adds or removes webgate's handlers in the "hooks" object of a
// settings file whose events hold matcher groups. Every webgate handler
// that want does not name is removed; the first one of each entry of want
// is rewritten as its handler (other members kept) and the ones after it
// are removed as duplicates; an entry not found is added in a group of
// its own. Groups, events and a "hooks" object left empty by the removal
// are removed; ones the file already had empty are kept. legacy says to
// report the older Node hooks found. Only handlers webgate wrote, in the
// runtime's form, are webgate's ([ownHandler]); any other stays as it is.
func editGroups(root *object, want []groupEntry, form hookForm, install, legacy bool, p *Plan) {
	hooksV, _ := root.get("hooks")
	hooks, ok := hooksV.(*object)
	if !ok {
		if !install {
			return
		}
		if hooksV != nil {
			p.Found = append(p.Found, "\"hooks\" was not an object; it was replaced")
		}
		hooks = newObject()
		root.set("hooks", hooks)
	}
	// An object the user left empty stays; one emptied here goes.
	had := len(hooks.members) > 0
	byKey := map[string]groupEntry{}
	for _, e := range want {
		byKey[e.event+"\x00"+e.bin] = e
	}
	done := map[string]bool{}
	for _, event := range hooks.names() {
		gv, _ := hooks.get(event)
		groups, ok := gv.([]any)
		if !ok {
			continue
		}
		keptGroups := editObjects(groups, func(group *object) *object {
			hs, _ := group.get("hooks")
			list, _ := hs.([]any)
			keptHooks := editObjects(list, func(ho *object) *object {
				cmd := textOf(ho, "command")
				if s := legacyScript(cmd); legacy && s != "" {
					p.Found = append(p.Found, fmt.Sprintf("%s: an older Node hook (%s) is registered for %s; it runs alongside webgate — remove it once webgate works", event, s, matcherOf(group)))
				}
				bin, path, remote, foreign := ownHandler(ho, form)
				if foreign != "" {
					p.Found = append(p.Found, foreignHook(event, foreign, cmd))
				}
				if bin == "" {
					return ho
				}
				if _, err := os.Stat(path); err != nil && !remote {
					p.Found = append(p.Found, fmt.Sprintf("%s: webgate hook %q points at a binary that does not exist", event, cmd))
				}
				key := event + "\x00" + bin
				e, wanted := byKey[key]
				if !install || !wanted {
					return nil // removed
				}
				if done[key] {
					p.Found = append(p.Found, fmt.Sprintf("%s: duplicate webgate %s entry (matcher %s) removed", event, bin, matcherOf(group)))
					return nil
				}
				done[key] = true
				setHandler(ho, e.handler)
				if len(list) == 1 {
					group.set("matcher", e.matcher)
				}
				return ho
			})
			if len(keptHooks) == 0 && len(list) > 0 {
				return nil
			}
			if len(list) > 0 {
				group.set("hooks", keptHooks)
			}
			return group
		})
		hooks.setKept(event, keptGroups, len(groups))
	}
	for _, e := range want {
		if done[e.event+"\x00"+e.bin] {
			continue
		}
		group := newObject()
		group.set("matcher", e.matcher)
		group.set("hooks", []any{e.handler})
		gv, _ := hooks.get(e.event)
		groups, _ := gv.([]any)
		hooks.set(e.event, append(groups, group))
	}
	if had && len(hooks.members) == 0 {
		root.del("hooks")
	}
}

// editObjects returns list with each entry that is an object replaced by
// what edit returns for it, or dropped when that is nil; entries that are
// not objects are kept as they are. nil when nothing is kept.
func editObjects(list []any, edit func(o *object) *object) []any {
	var kept []any
	for _, v := range list {
		o, ok := v.(*object)
		if !ok {
			kept = append(kept, v)
			continue
		}
		if o = edit(o); o != nil {
			kept = append(kept, o)
		}
	}
	return kept
}

// foreignHook words the report of a handler that runs a program named
// like one of webgate's hooks but that webgate did not write.
func foreignHook(event, name, cmd string) string {
	return fmt.Sprintf("%s: a hook named %s that webgate did not write is left alone: %q", event, name, cmd)
}

func matcherOf(group *object) string {
	m := textOf(group, "matcher")
	if m == "" {
		return `"*"`
	}
	return fmt.Sprintf("%q", m)
}
