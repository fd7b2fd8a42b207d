package main

import (
	"context"
	"fmt"
	"io"

	"github.com/webgate-dev/webgate/cmd/internal/gateway"
)

func auditCommand() command {
	return command{
		name:    "audit",
		summary: "Verify the team gateway's hash-chained audit log",
		run:     runAudit,
	}
}

const auditDescription = `
Audit verify checks the audit log of the team gateway (webgate serve) in
the configured store: each entry must carry its own hash and the hash of
the entry before it, and the newest must be the chain's head. An entry
edited, removed or reordered is named; entries missing may also be the
last ones of a replica killed (not shut down) before it wrote them. Exit
status 0 when the chain is intact, 1 when it is not or the store cannot
be read.`

func runAudit(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("audit", "verify [flags]", auditDescription, "  webgate audit verify", stderr)
	configFile := fs.String("config", "", configUsage)
	rest, err := parseArgs(fs, args, stdout)
	if err != nil {
		return flagExit(err)
	}
	if len(rest) != 1 || rest[0] != "verify" {
		fs.Usage()
		return exitUsage
	}
	st, code := openGatewayStore(ctx, *configFile, "audit", stderr)
	if st == nil {
		return code
	}
	defer st.Close()
	n, err := (&gateway.Audit{Store: st}).Verify(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "webgate audit: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stdout, "audit log intact: %d entries chained\n", n)
	return exitOK
}
