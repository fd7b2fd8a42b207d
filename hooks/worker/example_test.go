package worker_test

import (
	"bytes"
	"fmt"

	"github.com/webgate-dev/webgate/hooks/worker"
)

// A front and a warm worker speak in frames: a 4-byte length, then JSON.
func ExampleWriteFrame() {
	var conn bytes.Buffer
	req := worker.Request{Version: 1, Hook: "webfetch", Payload: []byte(`{"tool_name":"WebFetch"}`)}
	if err := worker.WriteFrame(&conn, req); err != nil {
		panic(err)
	}
	fmt.Println("length prefix:", conn.Bytes()[:4])
	var got worker.Request
	if err := worker.ReadFrame(&conn, &got); err != nil {
		panic(err)
	}
	fmt.Println(got.Hook, string(got.Payload))
	// Output:
	// length prefix: [0 0 0 109]
	// webfetch {"tool_name":"WebFetch"}
}

// The warm workers of one state directory keep their files under "run".
func ExampleStateLayout() {
	l := worker.StateLayout("/home/ana/.local/state/webgate")
	fmt.Println(l.Dir)
	fmt.Println(l.StartLock())
	// Output:
	// /home/ana/.local/state/webgate/run
	// /home/ana/.local/state/webgate/run/start.lock
}
