package setup

import (
	"path/filepath"
	"strings"
)

// hookForm is how a runtime's settings spell the command handler webgate
// writes there.
type hookForm int

const (
	// claudeForm: exec form, {"type":"command","command":"/abs/websearch",
	// "args":[]}: the command is the program's path as it is, no shell.
	claudeForm hookForm = iota
	// geminiForm: {"type":"command","command":<path as one shell word>,
	// "name":"webgate-…"}: Gemini CLI runs the command through a shell.
	geminiForm
	// copilotForm: {"type":"command","bash":<path as one shell word>,
	// "powershell":<path as a PowerShell command>}: Copilot CLI runs
	// each field as a script.
	copilotForm
)

// ownHandler says whether the handler ho is one webgate wrote, in the form
// webgate writes it for the runtime (form), or in the forms earlier
// versions wrote: bin is "websearch" or "webfetch" and path the program it
// runs (empty for an HTTP handler that posts to a gateway's hook endpoint,
// which remote reports). A command handler that runs a program named like
// a hook binary but is not in one of those forms (a user's own script, one
// with arguments, a shell pipeline) is not webgate's: bin is "" and
// foreign is the hook name, so that it can be reported and left alone.
func ownHandler(ho *object, form hookForm) (bin, path string, remote bool, foreign string) {
	if textOf(ho, "type") == "http" {
		return gatewayHookBin(textOf(ho, "url")), "", true, ""
	}
	key := "command"
	if form == copilotForm {
		key = "bash"
	}
	cmd := textOf(ho, key)
	switch form {
	case claudeForm:
		if args, ok := ho.get("args"); ok {
			if l, ok := args.([]any); ok && len(l) == 0 {
				path = cmd
			}
		}
	case geminiForm:
		switch textOf(ho, "name") {
		case "webgate-websearch", "webgate-webfetch", "webgate-session-start":
			path, _ = shellUnquote(cmd)
		}
	case copilotForm:
		ps := textOf(ho, "powershell")
		if p, ok := shellUnquote(cmd); ok && (ps == powershellCommand(p) || ps == p) {
			path = p
		} else if ps == cmd {
			// Before the fields were quoted, both held the bare path.
			path = cmd
		}
	}
	if textOf(ho, "type") == "command" && filepath.IsAbs(path) {
		if b := hookName(path); b != "" {
			return b, path, false, ""
		}
	}
	return "", "", false, hookBinary(cmd)
}

// hookName returns "websearch" or "webfetch" when the file name of path is
// one of webgate's hook binaries, and "" otherwise.
func hookName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".exe")
	switch base {
	case "websearch", "webfetch", "webgate-websearch", "webgate-webfetch":
		return strings.TrimPrefix(base, "webgate-")
	}
	return ""
}

// plainWord reports whether s holds only characters that a POSIX shell
// and PowerShell both take literally in a command name: letters, digits
// and "/._-".
func plainWord(s string) bool { return onlyChars(s, "/._-") }

// plainShellWord reports whether s holds only characters a POSIX shell
// takes literally in a word: letters, digits and "/._-+:@%,".
func plainShellWord(s string) bool { return onlyChars(s, "/._-+:@%,") }

// onlyChars reports whether s is not empty and holds only ASCII letters,
// digits and the characters of extra.
func onlyChars(s, extra string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || strings.ContainsRune(extra, r)) {
			return false
		}
	}
	return true
}

// shellQuote returns path as one POSIX shell word that runs it: as it is
// when it needs no quoting, else in single quotes, each "'" in it written
// as '\”. Nothing in single quotes is expanded: a path holding a space,
// $( ), a backquote or a quote runs as the path it is.
func shellQuote(path string) string {
	if plainShellWord(path) {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}

// shellUnquote returns the path of a shell word as [shellQuote] (or
// [geminiCommand]) writes it: a plain word, or single-quoted parts joined
// by \' escapes. ok is false for anything else.
func shellUnquote(word string) (path string, ok bool) {
	if plainShellWord(word) {
		return word, true
	}
	var b strings.Builder
	for i := 0; i < len(word); {
		switch {
		case word[i] == '\'':
			end := strings.IndexByte(word[i+1:], '\'')
			if end < 0 {
				return "", false
			}
			b.WriteString(word[i+1 : i+1+end])
			i += end + 2
		case strings.HasPrefix(word[i:], `\'`):
			b.WriteByte('\'')
			i += 2
		default:
			return "", false
		}
	}
	return b.String(), word != ""
}

// powershellCommand returns path as a PowerShell command that runs it: as
// it is when it needs no quoting, else the call operator and a
// single-quoted string ("& 'C:\Program Files\webgate\webfetch.exe'"), each
// "'" in it doubled. Nothing in single quotes is expanded.
func powershellCommand(path string) string {
	if plainWord(path) {
		return path
	}
	return "& '" + strings.ReplaceAll(path, "'", "''") + "'"
}
