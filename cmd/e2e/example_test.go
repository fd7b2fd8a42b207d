package e2e_test

import (
	"fmt"

	"github.com/webgate-dev/webgate/cmd/e2e"
)

// A settings file that runs an installed hook before WebSearch and WebFetch.
func ExampleSettings_AddHook() {
	s := new(e2e.Settings).AddHook("PreToolUse", "WebSearch|WebFetch",
		e2e.ExecHook("/opt/webgate/websearch"))
	fmt.Println(string(s.JSON()))
	// Output:
	// {
	//   "hooks": {
	//     "PreToolUse": [
	//       {
	//         "matcher": "WebSearch|WebFetch",
	//         "hooks": [
	//           {
	//             "args": [],
	//             "command": "/opt/webgate/websearch",
	//             "type": "command"
	//           }
	//         ]
	//       }
	//     ]
	//   }
	// }
}
