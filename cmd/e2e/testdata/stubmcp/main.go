// Command stubmcp is a minimal stdio MCP server used by the e2e tests.
//
// It offers one tool, "search" (-tool NAME changes it; the tests use
// "WebSearch" to stand in for a ccs-websearch server), taking
// {"query": string}. A query starting with "FAIL" returns a result with
// isError true and the text <PREFIX>-ERROR-<query>; any other query returns
// the text <PREFIX>-OUTPUT-<query>, where PREFIX is "MCP" unless -prefix
// says otherwise. Messages are newline-delimited JSON-RPC 2.0 on stdin and
// stdout.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"strings"
)

var (
	toolName = flag.String("tool", "search", "the name of the one tool")
	prefix   = flag.String("prefix", "MCP", "the prefix of the tool's answers")
)

type request struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

func main() {
	flag.Parse()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 64<<10), 16<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // notifications and junk get no reply
		}
		result, rpcErr := handle(req)
		resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if rpcErr != nil {
			resp["error"] = rpcErr
		} else {
			resp["result"] = result
		}
		_ = out.Encode(resp)
	}
}

func handle(req request) (any, any) {
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		if p.ProtocolVersion == "" {
			p.ProtocolVersion = "2025-06-18"
		}
		return map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "stubmcp-" + *toolName, "version": "0.0.0"},
		}, nil
	case "ping":
		return map[string]any{}, nil
	case "tools/list":
		return map[string]any{"tools": []any{map[string]any{
			"name":        *toolName,
			"description": "Searches the web.",
			"inputSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"query": map[string]any{"type": "string"}},
				"required":   []string{"query"},
			},
		}}}, nil
	case "tools/call":
		var p struct {
			Name      string `json:"name"`
			Arguments struct {
				Query string `json:"query"`
			} `json:"arguments"`
		}
		_ = json.Unmarshal(req.Params, &p)
		if p.Name != *toolName {
			return nil, map[string]any{"code": -32602, "message": "unknown tool " + p.Name}
		}
		q := p.Arguments.Query
		if strings.HasPrefix(q, "FAIL") {
			return map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": *prefix + "-ERROR-" + q}}}, nil
		}
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": *prefix + "-OUTPUT-" + q}}}, nil
	default:
		return nil, map[string]any{"code": -32601, "message": "method not found: " + req.Method}
	}
}
