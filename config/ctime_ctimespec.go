//go:build darwin || freebsd || netbsd

package config

import (
	"syscall"
	"time"
)

// changeTime returns the status change time of a stat result.
func changeTime(st *syscall.Stat_t) time.Time { return time.Unix(st.Ctimespec.Unix()) }
