package gateway

import (
	"encoding/json"
	"strings"

	"github.com/webgate-dev/webgate/hooks"
)

// scopeSession returns payload with its session named for tok: the
// session ID becomes "gw:<token ID>/<session ID>". A hook keeps what it
// carries from one event of a call to the next (the answer prepared on
// PreToolUse for PostToolUse) under the session and tool use IDs, which
// the caller chooses; scoped so, one token can neither take nor plant
// another's. Every key a JSON decoder could read as the session (any
// case of session_id or sessionId) is replaced by the one scoped key. A
// payload that is not a JSON object is returned as it is: the hook
// refuses it.
func scopeSession(payload []byte, tok *Token) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(payload, &obj) != nil || obj == nil {
		return payload
	}
	session := ""
	if in, err := hooks.ParseInput(payload); err == nil && in != nil {
		session = in.SessionID
	}
	for k := range obj {
		if strings.EqualFold(k, "session_id") || strings.EqualFold(k, "sessionId") {
			delete(obj, k)
		}
	}
	v, _ := json.Marshal("gw:" + tok.ID + "/" + session)
	obj["session_id"] = v
	out, err := json.Marshal(obj)
	if err != nil {
		return payload
	}
	return out
}
