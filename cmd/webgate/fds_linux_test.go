//go:build linux

package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A long-lived command (webgate mcp, as an MCP client starts it) keeps
// none of the descriptors its starter left open: the starter's caller,
// reading the other end of such a pipe, sees it end while the server
// runs.
func TestMCP_KeepsNoDescriptorItInherited(t *testing.T) {
	bin := buildWebgate(t)
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(bin, "mcp")
	cmd.Env = []string{"HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "state"), "PATH=" + os.Getenv("PATH")}
	stdin, err := cmd.StdinPipe() // held open: the server runs on
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.ExtraFiles = []*os.File{w} // descriptor 3, without close-on-exec
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	w.Close()
	_ = r.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.ReadAll(r); err != nil {
		t.Fatalf("descriptor 3 did not end while webgate mcp ran: %v", err)
	}
	// And it runs: it answers an initialize request.
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"serverInfo"`) {
		t.Fatalf("webgate mcp did not answer initialize: %q %v", line, err)
	}
}
