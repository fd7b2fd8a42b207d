package config

import (
	"errors"
	"strings"
)

// Problem is one invalid setting. Its message names the setting and where
// the value came from; it never repeats the value, which might be a key.
type Problem struct {
	// Key is the setting's file key ("search.mode"), or "config file" for
	// a problem with the file itself.
	Key string
	// Source is where the value came from: "file PATH key KEY" or
	// "env NAME".
	Source string
	// Message says what is wrong and what is accepted.
	Message string
	// Err is the underlying error, when there is one.
	Err error
}

// Error returns "KEY (SOURCE): MESSAGE".
func (p *Problem) Error() string {
	if p.Source == "" {
		return p.Key + ": " + p.Message
	}
	return p.Key + " (" + p.Source + "): " + p.Message
}

// Unwrap returns the underlying error.
func (p *Problem) Unwrap() error { return p.Err }

// Error is every problem found while loading, returned together by [Load]
// alongside a usable Config in which each invalid setting kept its default.
type Error struct {
	Problems []*Problem
}

// Error returns one line per problem.
func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.Error()
	}
	return "config: " + strings.Join(lines, "\nconfig: ")
}

// Unwrap returns the problems, so errors.Is and errors.As see each one.
func (e *Error) Unwrap() []error {
	out := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p
	}
	return out
}

// joinProblems returns an *Error holding every *Problem in errs (flattening
// nested *Error values), or nil when there are none.
func joinProblems(errs []error) error {
	var ps []*Problem
	for _, err := range errs {
		var ce *Error
		var p *Problem
		switch {
		case err == nil:
		case errors.As(err, &ce):
			ps = append(ps, ce.Problems...)
		case errors.As(err, &p):
			ps = append(ps, p)
		default:
			ps = append(ps, &Problem{Key: "config", Message: err.Error(), Err: err})
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return &Error{Problems: ps}
}

// Problems returns the problems of a [Load] error as text, one line each:
// the lines of a [*Error], or err's own message for any other error, and
// nil for nil. Like the problems themselves, the lines name settings and
// sources and never a value.
func Problems(err error) []string {
	if err == nil {
		return nil
	}
	var ce *Error
	if errors.As(err, &ce) {
		out := make([]string, 0, len(ce.Problems))
		for _, p := range ce.Problems {
			out = append(out, p.Error())
		}
		return out
	}
	return []string{err.Error()}
}
