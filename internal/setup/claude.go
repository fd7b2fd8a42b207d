package setup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Legacy hook scripts of the older Node hooks that webgate replaces.
var legacyScripts = []string{"websearch-custom.cjs", "webfetch-scraper.cjs"}

// hookBinary returns "websearch" or "webfetch" when command runs one of
// webgate's hook binaries (by file name), and "" otherwise.
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
	base := strings.TrimSuffix(filepath.Base(first), ".exe")
	switch base {
	case "websearch", "webfetch", "webgate-websearch", "webgate-webfetch":
		return strings.TrimPrefix(base, "webgate-")
	}
	return ""
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
	}
	if len(o.MCPTools) > 0 {
		m := strings.Join(o.MCPTools, "|")
		es = append(es,
			claudeEntry{"PostToolUse", m, "websearch", o.WebSearchBin, o.SearchTimeout},
			claudeEntry{"PostToolUseFailure", m, "websearch", o.WebSearchBin, o.SearchTimeout})
	}
	if o.SessionStart {
		es = append(es, claudeEntry{"SessionStart", "startup|resume|clear|compact", "websearch", o.WebSearchBin, 10})
	}
	return es
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
	want := map[string]claudeEntry{}
	if install {
		for _, e := range claudeEntries(o) {
			want[e.event+"\x00"+e.bin] = e
		}
	}
	done := map[string]bool{}
	for _, event := range append([]string(nil), hooks.keys...) {
		groups, ok := hooks.vals[event].([]any)
		if !ok {
			continue
		}
		var keptGroups []any
		for _, g := range groups {
			group, ok := g.(*object)
			if !ok {
				keptGroups = append(keptGroups, g)
				continue
			}
			hs, _ := group.get("hooks")
			list, _ := hs.([]any)
			var keptHooks []any
			for _, h := range list {
				ho, ok := h.(*object)
				if !ok {
					keptHooks = append(keptHooks, h)
					continue
				}
				cmd, _ := ho.vals["command"].(string)
				if s := legacyScript(cmd); s != "" {
					p.Found = append(p.Found, fmt.Sprintf("%s: an older Node hook (%s) is registered for %s; it runs alongside webgate — remove it once webgate works", event, s, matcherOf(group)))
				}
				bin := hookBinary(cmd)
				if bin == "" {
					keptHooks = append(keptHooks, h)
					continue
				}
				if _, err := os.Stat(firstField(cmd)); err != nil {
					p.Found = append(p.Found, fmt.Sprintf("%s: webgate hook %q points at a binary that does not exist", event, cmd))
				}
				key := event + "\x00" + bin
				e, wanted := want[key]
				if !install || !wanted {
					continue // removed
				}
				if done[key] {
					p.Found = append(p.Found, fmt.Sprintf("%s: duplicate webgate %s entry (matcher %s) removed", event, bin, matcherOf(group)))
					continue
				}
				done[key] = true
				ho.set("type", "command")
				ho.set("command", e.path)
				ho.set("args", []any{})
				ho.set("timeout", e.timeout)
				if len(list) == 1 {
					group.set("matcher", e.matcher)
				}
				keptHooks = append(keptHooks, ho)
			}
			if len(keptHooks) == 0 && len(list) > 0 {
				continue
			}
			if len(list) > 0 {
				group.set("hooks", keptHooks)
			}
			keptGroups = append(keptGroups, group)
		}
		if len(keptGroups) == 0 && len(groups) > 0 {
			hooks.del(event)
			continue
		}
		hooks.set(event, keptGroups)
	}
	if install {
		for _, e := range claudeEntries(o) {
			key := e.event + "\x00" + e.bin
			if done[key] {
				continue
			}
			group := newObject()
			group.set("matcher", e.matcher)
			group.set("hooks", []any{handler(e.path, e.timeout)})
			groups, _ := hooks.vals[e.event].([]any)
			hooks.set(e.event, append(groups, group))
		}
	}
	if len(hooks.keys) == 0 {
		root.del("hooks")
	}
}

func matcherOf(group *object) string {
	m, _ := group.vals["matcher"].(string)
	if m == "" {
		return `"*"`
	}
	return fmt.Sprintf("%q", m)
}

func firstField(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	if cmd != "" && (cmd[0] == '"' || cmd[0] == '\'') {
		if end := strings.IndexByte(cmd[1:], cmd[0]); end >= 0 {
			return cmd[1 : end+1]
		}
	}
	if i := strings.IndexAny(cmd, " \t"); i >= 0 {
		return cmd[:i]
	}
	return cmd
}
