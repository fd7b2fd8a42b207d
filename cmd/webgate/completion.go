package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/webgate-dev/webgate/cmd/internal/setup"
	"github.com/webgate-dev/webgate/config"
)

func completionCommand() command {
	return command{
		name:    "completion",
		summary: "Print a shell completion script (bash, zsh or fish)",
		run:     runCompletion,
	}
}

const completionDescription = `
Completion prints a script that completes webgate's commands and their
flags in bash, zsh or fish. Load it from your shell's start-up file.`

const completionExamples = `  # bash (~/.bashrc)
  source <(webgate completion bash)
  # zsh (~/.zshrc; after compinit)
  source <(webgate completion zsh)
  # fish
  webgate completion fish > ~/.config/fish/completions/webgate.fish`

func runCompletion(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("completion", "bash|zsh|fish", completionDescription, completionExamples, stderr)
	rest, err := parseArgs(fs, args, stdout)
	if err != nil {
		return flagExit(err)
	}
	if len(rest) != 1 {
		shortUsage(stderr, fs, fmt.Errorf("name one shell: bash, zsh or fish"))
		return exitUsage
	}
	flags := commandCompletions(ctx)
	switch rest[0] {
	case "bash":
		writeBash(stdout, flags)
	case "zsh":
		fmt.Fprintln(stdout, "#compdef webgate\nautoload -U +X bashcompinit && bashcompinit")
		writeBash(stdout, flags)
	case "fish":
		writeFish(stdout, flags)
	default:
		shortUsage(stderr, fs, fmt.Errorf("unknown shell %q%s", rest[0], didYouMean(rest[0], []string{"bash", "zsh", "fish"}, "")))
		return exitUsage
	}
	return exitOK
}

// flagLine matches a flag in a command's help ("  --provider NAME"), with
// the name of its value when it takes one.
var flagLine = regexp.MustCompile(`(?m)^  (--?[A-Za-z][A-Za-z0-9-]*)( \S+)?$`)

// cmdCompletion is what the completion offers after a command: its
// flags, the flags that take a value, the values of some of them, and
// the words it takes (its subcommands).
type cmdCompletion struct {
	flags  []string
	valued []string
	values map[string][]string
	words  []string
}

// completionWords are the words commands take (their subcommands or
// arguments), and the values of flags that take one of a few.
func completionWords() (words map[string][]string, values map[string]map[string][]string) {
	setupNames := make([]string, 0, len(setupTargets)+1)
	for _, t := range setupTargets {
		setupNames = append(setupNames, string(t))
	}
	setupNames = append(setupNames, "all")
	installTargets := []string{string(setup.ClaudeCode), string(setup.CopilotCLI), string(setup.CopilotVSCode), string(setup.GeminiCLI), string(setup.Codex), "all"}
	scopes := []string{"user", "project"}
	searchNames, extractNames := config.Providers().SearchNames(), config.Providers().ExtractNames()
	words = map[string][]string{
		"cache":      {"clear"},
		"routes":     {"test", "list"},
		"token":      {"create", "list", "revoke"},
		"audit":      {"verify"},
		"completion": {"bash", "zsh", "fish"},
	}
	values = map[string]map[string][]string{
		"install":   {"--target": installTargets, "--scope": scopes},
		"uninstall": {"--target": installTargets, "--scope": scopes},
		"setup":     {"--target": setupNames, "--provider": config.Providers().Names()},
		"search":    {"--mode": {"parallel", "fallback", "single"}, "--topic": {"general", "news", "finance"}, "--provider": searchNames},
		"fetch":     {"--provider": extractNames},
	}
	return words, values
}

// commandCompletions returns what the completion offers after each
// command. The flags are read from the command's own help, so that the
// completion cannot drift from the commands.
func commandCompletions(ctx context.Context) map[string]cmdCompletion {
	words, values := completionWords()
	out := map[string]cmdCompletion{}
	for _, c := range commands() {
		var help bytes.Buffer
		c.run(ctx, []string{"--help"}, strings.NewReader(""), &help, io.Discard)
		cc := cmdCompletion{words: words[c.name], values: values[c.name]}
		for _, m := range flagLine.FindAllStringSubmatch(help.String(), -1) {
			cc.flags = append(cc.flags, m[1])
			if m[2] != "" {
				cc.valued = append(cc.valued, m[1])
			}
		}
		sort.Strings(cc.flags)
		sort.Strings(cc.valued)
		out[c.name] = cc
	}
	return out
}

// writeBash writes the bash completion: after a flag that takes a value,
// the flag's values (or, for a file, a directory or free text, the
// shell's default completion); after a command that takes words (cache
// clear), its words; otherwise, or for a word starting with "-", the
// command's flags.
func writeBash(w io.Writer, cmds map[string]cmdCompletion) {
	names := slices.Sorted(maps.Keys(cmds))
	fmt.Fprintf(w, "# webgate completion for bash (and zsh through bashcompinit)\n_webgate() {\n")
	fmt.Fprintf(w, "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n")
	fmt.Fprintf(w, "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return\n  fi\n", strings.Join(append(names, "help"), " "))
	fmt.Fprintf(w, "  case \"${COMP_WORDS[1]}\" in\n")
	for _, n := range names {
		cc := cmds[n]
		fmt.Fprintf(w, "    %s)\n", n)
		if len(cc.valued) > 0 {
			fmt.Fprintf(w, "      case \"$prev\" in\n")
			for _, f := range cc.valued {
				if v := cc.values[f]; len(v) > 0 {
					fmt.Fprintf(w, "        %s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", f, strings.Join(v, " "))
				}
			}
			var free []string
			for _, f := range cc.valued {
				if len(cc.values[f]) == 0 {
					free = append(free, f)
				}
			}
			if len(free) > 0 {
				fmt.Fprintf(w, "        %s) return ;;\n", strings.Join(free, "|"))
			}
			fmt.Fprintf(w, "      esac\n")
		}
		if len(cc.words) > 0 {
			fmt.Fprintf(w, "      case \"$cur\" in\n        -*) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n        *) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n      esac ;;\n",
				strings.Join(cc.flags, " "), strings.Join(cc.words, " "))
		} else {
			fmt.Fprintf(w, "      COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", strings.Join(cc.flags, " "))
		}
	}
	fmt.Fprintf(w, "    help) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", strings.Join(names, " "))
	fmt.Fprintf(w, "  esac\n}\ncomplete -o default -F _webgate webgate\n")
}

// writeFish writes the fish completion: commands, their words, their
// flags, and for a flag that takes a value its values, or the files.
func writeFish(w io.Writer, cmds map[string]cmdCompletion) {
	names := slices.Sorted(maps.Keys(cmds))
	fmt.Fprintln(w, "# webgate completion for fish")
	fmt.Fprintln(w, "complete -c webgate -f")
	for _, n := range names {
		cc := cmds[n]
		fmt.Fprintf(w, "complete -c webgate -n '__fish_use_subcommand' -a %s\n", n)
		cond := fmt.Sprintf("-n '__fish_seen_subcommand_from %s'", n)
		if len(cc.words) > 0 {
			fmt.Fprintf(w, "complete -c webgate %s -a '%s'\n", cond, strings.Join(cc.words, " "))
		}
		for _, f := range cc.flags {
			opt := "-l " + strings.TrimPrefix(f, "--")
			if short := strings.TrimPrefix(f, "-"); !strings.HasPrefix(f, "--") {
				opt = "-o " + short
				if len(short) == 1 {
					opt = "-s " + short
				}
			}
			switch {
			case len(cc.values[f]) > 0:
				opt += fmt.Sprintf(" -x -a '%s'", strings.Join(cc.values[f], " "))
			case slices.Contains(cc.valued, f):
				opt += " -r -F"
			}
			fmt.Fprintf(w, "complete -c webgate %s %s\n", cond, opt)
		}
	}
}
