package worker

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The numbers the caller check uses are the system's on every
// architecture: these fail to compile (an index out of range) where one
// is not. GOARCH=… go vet checks each.
var (
	_ = [1]int{}[sysPidfdOpen-unix.SYS_PIDFD_OPEN]
	_ = [1]int{}[unix.SYS_PIDFD_OPEN-sysPidfdOpen]
	_ = [1]int{}[sysPidfdSendSignal-unix.SYS_PIDFD_SEND_SIGNAL]
	_ = [1]int{}[unix.SYS_PIDFD_SEND_SIGNAL-sysPidfdSendSignal]
	_ = [1]int{}[soPeerPidfd-unix.SO_PEERPIDFD]
	_ = [1]int{}[unix.SO_PEERPIDFD-soPeerPidfd]
)

func TestCallerCheck_PinsThisProcessByAPidfd(t *testing.T) {
	fd, err := pidfdOpen(unix.Getpid())
	if err != nil {
		t.Skipf("pidfd_open: %v", err)
	}
	defer unix.Close(fd)
	if err := pidfdSignal(fd, 0); err != nil {
		t.Errorf("pidfd_send_signal to this process: %v", err)
	}
}
