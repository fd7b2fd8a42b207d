// Package lazyre compiles regular expressions on first use rather than at
// program start. The hook worker is a new process for every call and
// runs few of the expressions its packages hold; compiling them all in
// package initialisation cost every call several milliseconds.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call and returns
// the same *regexp.Regexp on every call. Like regexp.MustCompile it panics
// when expr is invalid, so expressions are fixed in code and covered by
// their package's tests.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
