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
	flags := commandFlags(ctx)
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

// flagLine matches a flag in a command's help ("  --provider NAME").
var flagLine = regexp.MustCompile(`(?m)^  (--?[A-Za-z][A-Za-z0-9-]*)`)

// commandFlags returns every command's flags, read from its own help so
// that the completion cannot drift from the commands.
func commandFlags(ctx context.Context) map[string][]string {
	out := map[string][]string{}
	for _, c := range commands() {
		if c.name == "completion" {
			out[c.name] = []string{"bash", "zsh", "fish"}
			continue
		}
		var help bytes.Buffer
		c.run(ctx, []string{"--help"}, strings.NewReader(""), &help, io.Discard)
		var fl []string
		for _, m := range flagLine.FindAllStringSubmatch(help.String(), -1) {
			fl = append(fl, m[1])
		}
		sort.Strings(fl)
		out[c.name] = fl
	}
	return out
}

func writeBash(w io.Writer, flags map[string][]string) {
	names := slices.Sorted(maps.Keys(flags))
	fmt.Fprintf(w, "# webgate completion for bash (and zsh through bashcompinit)\n_webgate() {\n")
	fmt.Fprintf(w, "  local cur=\"${COMP_WORDS[COMP_CWORD]}\"\n")
	fmt.Fprintf(w, "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return\n  fi\n", strings.Join(append(names, "help"), " "))
	fmt.Fprintf(w, "  case \"${COMP_WORDS[1]}\" in\n")
	for _, n := range names {
		fmt.Fprintf(w, "    %s) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", n, strings.Join(flags[n], " "))
	}
	fmt.Fprintf(w, "    help) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", strings.Join(names, " "))
	fmt.Fprintf(w, "  esac\n}\ncomplete -o default -F _webgate webgate\n")
}

func writeFish(w io.Writer, flags map[string][]string) {
	names := slices.Sorted(maps.Keys(flags))
	fmt.Fprintln(w, "# webgate completion for fish")
	fmt.Fprintln(w, "complete -c webgate -f")
	for _, n := range names {
		fmt.Fprintf(w, "complete -c webgate -n '__fish_use_subcommand' -a %s\n", n)
		for _, f := range flags[n] {
			switch {
			case strings.HasPrefix(f, "--"):
				fmt.Fprintf(w, "complete -c webgate -n '__fish_seen_subcommand_from %s' -l %s\n", n, strings.TrimPrefix(f, "--"))
			case strings.HasPrefix(f, "-"):
				fmt.Fprintf(w, "complete -c webgate -n '__fish_seen_subcommand_from %s' -s %s\n", n, strings.TrimPrefix(f, "-"))
			default:
				fmt.Fprintf(w, "complete -c webgate -n '__fish_seen_subcommand_from %s' -a %s\n", n, f)
			}
		}
	}
}
