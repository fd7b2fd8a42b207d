package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/hooks"
)

// checkAnswer says how Claude Code's native web tools are answered under
// the configured answer style, for the user's own permission rules: under
// replace the hooks allow the native call and replace its output, unless
// a deny or ask rule (which a hook's allow does not override) makes them
// fall back to the deny answer, a deny rule for some of WebFetch's pages
// has the fetch hook step aside for them, or a bare deny rule takes the
// tool away.
func (d *doctor) checkAnswer(cfg *config.Config) {
	const sec = "Answers (Claude Code)"
	style := cfg.AnswerStyle()
	origin := cfg.Origin("hooks.answer")
	if style != string(hooks.AnswerReplace) {
		d.add(sec, "style", statusInfo, fmt.Sprintf("%s (hooks.answer %s, %s): the model reads webgate's answers as the hook's denial of the native tool", style, cfg.Hooks.Answer, origin), "")
		return
	}
	d.add(sec, "style", statusInfo, fmt.Sprintf("replace (hooks.answer %s, %s): the hooks allow the native tool and replace its output", cfg.Hooks.Answer, origin), "")
	dir := d.f.host.getenv("CLAUDE_CONFIG_DIR")
	if dir == "" && d.f.host.Home != "" {
		dir = filepath.Join(d.f.host.Home, ".claude")
	}
	files := hooks.ClaudeSettingsFiles(dir, d.f.projectDir)
	for _, tool := range []string{"WebSearch", "WebFetch"} {
		r, ok := hooks.StoppingRule(files, tool, "")
		switch {
		case !ok:
			d.add(sec, tool, statusOK, "no deny or ask rule stops it: the hook allows the native "+tool+" (no allow rule needed, in claude -p too) and the model reads webgate's answer as its result", "")
		case r.Err != nil:
			d.add(sec, tool, statusWarn, fmt.Sprintf("%s: the hook counts it as a rule that stops the native %s and falls back to the deny answer (the model reads it as a hook error)", strings.TrimSuffix(r.String(), ","), tool),
				"fix or shrink "+r.File+" so that its permission rules can be read")
		case r.Kind == "deny" && r.Rule == tool:
			d.add(sec, tool, statusWarn, fmt.Sprintf("the deny rule %q in %s removes %s from the session: no hook runs and the model gets no answer", r.Rule, r.File, tool),
				"remove the rule to let webgate answer "+tool)
		case r.Kind == "deny" && tool == "WebFetch":
			// The web fetch hook does not read a page a deny rule forbids
			// (hooks.FetchDenied): it steps aside, whatever the style.
			d.add(sec, tool, statusInfo, fmt.Sprintf("the deny rule %q in %s: webgate does not read the pages it names and steps aside, and Claude Code refuses them by that rule; other pages are answered as replace says", r.Rule, r.File), "")
		default:
			d.add(sec, tool, statusInfo, fmt.Sprintf("the %s rule %q in %s stops the native %s, which a hook cannot allow: the hook falls back to the deny answer (the model reads it as a hook error)", r.Kind, r.Rule, r.File, tool), "")
		}
	}
}
