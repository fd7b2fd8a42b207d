package webtools

import (
	"errors"
	"fmt"

	"github.com/webgate-dev/webgate/internal/textfmt"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/provider"
)

// maxCause caps a failure's cause, in runes.
const maxCause = 160

// causeOf says in a few words why a provider failed, where the error
// knows: the memory skipped it (a circuit breaker open until a time, every
// key parked, the monthly budget spent), or the request did not reach it
// ([provider.NetworkCause]: no such host, connection refused, a TLS
// certificate not trusted). It returns "" when the failure class (and its
// hint) says all there is: an HTTP error the provider classified, a
// timeout, an unknown error. The text is on one line with the terminal
// rule applied; [Tools] scrubs the secrets from it.
func causeOf(err error) string {
	if err == nil {
		return ""
	}
	var skip *memory.SkipError
	if errors.As(err, &skip) {
		if skip.Until.IsZero() {
			return textfmt.Shorten("skipped: "+skip.Why, maxCause)
		}
		return textfmt.Shorten(fmt.Sprintf("skipped until %s: %s", skip.Until.Local().Format("15:04:05"), skip.Why), maxCause)
	}
	return textfmt.Shorten(provider.NetworkCause(err), maxCause)
}
