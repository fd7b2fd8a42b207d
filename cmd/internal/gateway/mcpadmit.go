package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP endpoint admits tool calls where they run. The gateway does not
// read the request to guess whether it holds a tool call: the MCP
// server's own dispatch does, and every tools/call it dispatches — a
// single message or each element of a batch, however the envelope is
// spelled — passes through [Server.admitTools] before its handler runs
// and after it returns. A call the SDK runs is therefore a call the
// limits admitted, metered and audited; nothing else runs a tool.

// mcpCall is one request to the MCP endpoint: its authenticated call and
// the limit that refused a tool call in it, if one did.
type mcpCall struct {
	c       *call
	mu      sync.Mutex
	limited *LimitError
}

type mcpCallKey struct{}

// serveMCP serves the MCP endpoint. A tools/call is admitted by the
// limits, metered and recorded like a /v1 call ([Server.admitTools]); the
// other methods (initialize, tools/list) cost nothing. A request of one
// message whose tool call a limit refused is answered 429 with
// Retry-After, as a /v1 call is; in a batch, the refused call's answer is
// a JSON-RPC error.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request, c *call) {
	batch := false
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeError(w, http.StatusRequestEntityTooLarge, "bad-input", "the request body is too large")
			return
		}
		batch = bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("["))
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	c.tools = c.metered(s.forToken(s.o.Tools, c.token))
	mc := &mcpCall{c: c}
	var out http.ResponseWriter = w
	if !batch {
		out = &limitWriter{ResponseWriter: w, mc: mc}
	}
	s.mcp.ServeHTTP(out, r.WithContext(context.WithValue(r.Context(), mcpCallKey{}, mc)))
}

// maxToolName bounds a tool name as the audit log keeps it.
const maxToolName = 64

// admitTools is the MCP server's receiving middleware: each tools/call
// the server dispatches is admitted under the token's limits before its
// handler runs, metered on its own, and settled and recorded after it.
// A call whose arguments the gateway could read otherwise than the tool
// does (a key twice, or twice in different case) is refused unrun.
func (s *Server) admitTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		mc, _ := ctx.Value(mcpCallKey{}).(*mcpCall)
		if mc == nil {
			// Not a request serveMCP admitted: nothing runs.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the call was not admitted"}
		}
		cc := *mc.c
		cc.meter = &meter{}
		tool, args, argErr := "", toolArgs{}, error(nil)
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
			tool = p.Name
			args, argErr = strictArgs(p.Arguments)
		}
		if len(tool) > maxToolName {
			tool = tool[:maxToolName]
		}
		var res *Reservation
		if s.o.Limiter != nil {
			var err error
			res, err = s.reserve(ctx, &cc, tool)
			var le *LimitError
			switch {
			case errors.As(err, &le):
				mc.mu.Lock()
				mc.limited = le
				mc.mu.Unlock()
				return nil, &jsonrpc.Error{Code: rpcLimited, Message: "rate-limited: " + le.Error()}
			case err != nil:
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the gateway's limits are unavailable"}
			}
		}
		if argErr != nil {
			s.settle(ctx, res, &cc, tool, "failed:bad-input", "", "")
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: argErr.Error()}
		}
		out, err := next(context.WithValue(ctx, meterKey{}, cc.meter), method, req)
		decision := "answered"
		if tr, ok := out.(*mcp.CallToolResult); err != nil || !ok || tr == nil {
			decision = "failed:rpc"
		} else if tr.IsError {
			decision = "failed:tool"
		}
		s.settle(ctx, res, &cc, tool, decision, args.Query, args.URL)
		return out, err
	}
}

// rpcLimited is the JSON-RPC error code of a tool call a limit refused
// (in the range JSON-RPC leaves to servers).
const rpcLimited = -32029

// toolArgs are the arguments of a tool call the gateway records.
type toolArgs struct {
	Query string `json:"query"`
	URL   string `json:"url"`
}

// strictArgs reads a tool call's arguments for the audit log, refusing
// an object that names a key twice, in the same or different case:
// decoders differ in which of the two they take, and the gateway must
// record what the tool reads.
func strictArgs(raw json.RawMessage) (toolArgs, error) {
	var args toolArgs
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return args, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return args, errors.New("the tool's arguments are not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return args, errors.New("the tool's arguments are not valid JSON")
		}
		key, _ := t.(string)
		if seen[strings.ToLower(key)] {
			return args, errors.New("the tool's arguments name " + strconv.Quote(key) + " twice")
		}
		seen[strings.ToLower(key)] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return args, errors.New("the tool's arguments are not valid JSON")
		}
	}
	_ = json.Unmarshal(raw, &args) // a wrong type is the tool's to refuse
	return args, nil
}

// limitWriter answers a request of one message whose tool call a limit
// refused with 429 and Retry-After, in place of the MCP server's
// JSON-RPC error.
type limitWriter struct {
	http.ResponseWriter
	mc       *mcpCall
	replaced bool
}

func (lw *limitWriter) WriteHeader(code int) {
	lw.mc.mu.Lock()
	le := lw.mc.limited
	lw.mc.mu.Unlock()
	if le != nil && !lw.replaced {
		lw.replaced = true
		lw.Header().Del("Content-Length")
		lw.Header().Set("Retry-After", strconv.FormatInt(le.RetryAfterSeconds(), 10))
		writeError(lw.ResponseWriter, http.StatusTooManyRequests, "rate-limited", le.Error())
		return
	}
	lw.ResponseWriter.WriteHeader(code)
}

func (lw *limitWriter) Write(p []byte) (int, error) {
	if !lw.replaced {
		lw.mc.mu.Lock()
		limited := lw.mc.limited != nil
		lw.mc.mu.Unlock()
		if limited {
			lw.WriteHeader(http.StatusOK)
		}
	}
	if lw.replaced {
		return len(p), nil // the MCP server's answer, replaced
	}
	return lw.ResponseWriter.Write(p)
}

// Unwrap returns the writer underneath, for http.ResponseController.
func (lw *limitWriter) Unwrap() http.ResponseWriter { return lw.ResponseWriter }

// Flush flushes the answer when the writer underneath can.
func (lw *limitWriter) Flush() {
	if f, ok := lw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// meterKey carries, in a tool call's context, the meter its provider
// calls are counted in.
type meterKey struct{}

// meterOf returns the meter in ctx, or m.
func meterOf(ctx context.Context, m *meter) *meter {
	if cm, ok := ctx.Value(meterKey{}).(*meter); ok {
		return cm
	}
	return m
}
