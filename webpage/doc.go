// Package webpage reads web pages safely for agents: one [Reader] that
// probes a page itself, decides whether it is readable as served, converts
// readable pages to Markdown locally, and sends the others to an extraction
// provider.
//
// Every frontend of webgate reads pages through it — the web fetch hook
// (before the native tool runs, and after it failed), `webgate fetch`, the
// MCP server's web_fetch and `webgate explain` — so they agree on every
// verdict, and an embedding program gets the same behaviour:
//
//	r := &webpage.Reader{Extractor: extraction} // nil: no provider
//	res, err := r.Read(ctx, webpage.Request{URL: "https://go.dev/blog/context"})
//
// # Reading
//
// [Reader.Read] is [Reader.Plan] followed by [Reader.Execute]. The plan
// probes the page ([Probe]) and, for HTML, classifies it (package
// classify): fetch-readable HTML and text are read locally
// ([ActionLocal]); template-heavy pages, pages that show their content only
// after JavaScript runs, HTML with no readable text, other documents, pages
// the probe could not read and pages that refused it ([RefusedStatus]) need
// extraction ([ActionExtract], with [Plan.Why]). A caller that only needs
// the verdict — the web fetch hook, which lets the agent's own tool read a
// readable page — stops after the plan. [Result.Source] says which path
// produced the content; a page that needed a provider that could not read
// it comes back as its own text with a Note when it has enough
// ([SourceLocalFallback]).
//
// # Safety
//
// [Probe] fetches only absolute http and https URLs without credentials,
// follows at most [MaxRedirects] redirects, ignores proxy settings, reads a
// bounded body within a bounded time, and checks every address it connects
// to with [CheckAddress], so neither a DNS answer nor a redirect reaches a
// loopback, private, link-local or cloud-metadata address unless
// ProbeConfig.AllowPrivate is set (metadata addresses stay refused even
// then), or ProbeConfig.AllowAddress allows it for the host of the URL or
// redirect being read — asked before each hop is followed and each
// address is dialled, so a redirect from an allowed host to another
// private one sends the second nothing. IPv6 forms that carry an IPv4 address are judged by the IPv4
// address. A host written as an IP address in any spelling is checked
// before anything is sent, so a refused URL is not handed to an extraction
// provider either. A page whose host is, or resolves to, a private address
// is never handed to one, even when ProbeConfig.AllowPrivate lets the
// reader read it ([Reader.Extract], [KindPrivate]), unless
// [Reader.PrivateExtractor] says the provider is self-hosted. An answer
// from the [Cache] passes the same address rule as a fresh read.
//
// # Budget
//
// When the caller's context has a deadline, a tier followed by k slow
// tiers that are configured (the browser, the PDF reader, the extraction
// providers) runs with at most the time left divided by k+1, so a page
// that holds one tier leaves the others their share.
//
// # Errors
//
// A page that cannot be read is an [*Error] with an [ErrorKind]; a probe
// that failed is a [*ProbeError] with a [ProbeFailure] decided from the
// error's type. Provider failures are listed as [provider.Failure] values.
//
// The package never reads the environment; its callers pass every setting.
package webpage
