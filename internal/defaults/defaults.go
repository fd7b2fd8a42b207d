// Package defaults fills in the defaults of option structs whose zero (or
// negative) value means "unset".
package defaults

import "time"

// Number is what [Positive] works on: the counts, sizes and durations of
// option structs (time.Duration among them).
type Number interface {
	~int | ~int64 | ~float64
}

// Positive returns v when it is above zero, def otherwise: the value of a
// setting whose zero or negative value means its default.
func Positive[T Number](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Now returns now(), or the wall clock's time when now is nil: the clock
// of an option struct whose Now field, nil by default, tests set.
func Now(now func() time.Time) time.Time {
	if now == nil {
		return time.Now()
	}
	return now()
}
