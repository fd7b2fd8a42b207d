package webtools

import "github.com/webgate-dev/webgate/hooks"

// fitContent fits page content into the size cap the way the web fetch hook
// does: when the prompt has useful terms, the parts most relevant to it are
// kept in page order; otherwise the beginning, cut at a boundary.
var fitContent = hooks.FitContent
