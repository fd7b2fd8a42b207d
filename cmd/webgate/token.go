package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/gateway"
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/store"
)

func tokenCommand() command {
	return command{
		name:    "token",
		summary: "Create, list or revoke the team gateway's bearer tokens",
		run:     runToken,
	}
}

var tokenDescription = `
Token manages the bearer tokens of the team gateway (webgate serve), in
the configured store (store.url): a Redis store is shared by every
replica, so a token created here is accepted by all of them at once,
and one revoked here is refused by all of them within a second (each
trusts a token it has read for that long).

  create  makes a token and prints its secret once (wg_…): only its
          SHA-256 is kept; --owner, --label and --team describe it, --ttl
          makes it expire
  list    lists the tokens: ID, owner, label, team, created, expires, state
  revoke  revokes the token with the given ID`

const tokenExamples = `  webgate token create --owner ana --team core --label laptop --ttl 2160h
  webgate token list
  webgate token revoke 3f9a1c2b4d5e`

func runToken(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("token", "create|list|revoke [flags] [ID]", tokenDescription, tokenExamples, stderr)
	owner := fs.String("owner", "", "create: who the token is for")
	label := fs.String("label", "", "create: what the token is for")
	team := fs.String("team", "", "create: the team whose budget the token shares")
	ttl := fs.Duration("ttl", 0, "create: expire the token after `DURATION` (default: never)")
	configFile := fs.String("config", "", configUsage)
	rest, err := parseArgs(fs, args, stdout)
	if err != nil {
		return flagExit(err)
	}
	if len(rest) == 0 || (rest[0] == "revoke") != (len(rest) == 2) || len(rest) > 2 {
		fs.Usage()
		return exitUsage
	}
	st, code := openGatewayStore(ctx, *configFile, "token", stderr)
	if st == nil {
		return code
	}
	defer st.Close()
	ts := &gateway.Tokens{Store: st}
	switch rest[0] {
	case "create":
		t, secret, err := ts.Create(ctx, gateway.NewToken{Owner: *owner, Label: *label, Team: *team, TTL: *ttl})
		if err != nil {
			fmt.Fprintf(stderr, "webgate token: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "%s\n", secret)
		fmt.Fprintf(stderr, "created token %s; its secret is shown above, once: it is not kept anywhere\n", t.ID)
	case "list":
		list, err := ts.List(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "webgate token: %v\n", err)
			return exitFail
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tOWNER\tLABEL\tTEAM\tCREATED\tEXPIRES\tSTATE")
		now := time.Now()
		for _, t := range list {
			state := "active"
			switch {
			case !t.Revoked.IsZero():
				state = "revoked " + t.Revoked.Format(time.DateOnly)
			case !t.Active(now):
				state = "expired"
			}
			exp := "never"
			if !t.Expires.IsZero() {
				exp = t.Expires.Format(time.DateTime)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, sanitize.Line(t.Owner), sanitize.Line(t.Label), sanitize.Line(t.Team),
				t.Created.Format(time.DateTime), exp, state)
		}
		tw.Flush()
	case "revoke":
		t, err := ts.Revoke(ctx, rest[1])
		if err != nil {
			fmt.Fprintf(stderr, "webgate token: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "revoked token %s (%s)\n", t.ID, sanitize.Line(t.Owner))
	default:
		fmt.Fprintf(stderr, "webgate token: unknown subcommand %q\n", rest[0])
		fs.Usage()
		return exitUsage
	}
	return exitOK
}

// openGatewayStore opens the configured store for the gateway's commands;
// nil and the exit code when it cannot be used.
func openGatewayStore(ctx context.Context, file, name string, stderr io.Writer) (*store.Store, int) {
	cfg := loadForMemory(file, name, stderr)
	return openGatewayStoreOf(ctx, cfg, name, stderr)
}

func openGatewayStoreOf(ctx context.Context, cfg *config.Config, name string, stderr io.Writer) (*store.Store, int) {
	if cfg.StoreOff() {
		fmt.Fprintf(stderr, "webgate %s: the store is off (store.url): the gateway keeps its tokens, limits and audit log there\n", name)
		return nil, exitFail
	}
	m, err := openMemory(ctx, cfg, cliStoreTimeout)
	if err != nil {
		fmt.Fprintf(stderr, "webgate %s: %s: %s\n", name, locateStore(cfg), storeError(err))
		return nil, exitFail
	}
	return m.Store(), exitOK
}
