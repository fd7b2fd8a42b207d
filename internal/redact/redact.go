// Package redact replaces secret-like values in text (queries, URLs, error
// and log messages) with a marker, "[REDACTED:<kind>]", before the text is
// stored or logged.
//
// # What it finds
//
// The rules follow the spirit of gitleaks' (github.com/gitleaks/gitleaks):
//
//   - API keys and tokens of known formats: OpenAI (sk-…, sk-proj-…),
//     Anthropic (sk-ant-…), GitHub (ghp_, gho_, ghu_, ghs_, ghr_,
//     github_pat_), GitLab (glpat-), AWS access key IDs (AKIA…, ASIA…),
//     Google API keys (AIza…) and OAuth tokens (ya29.…), Slack tokens
//     (xox…) and webhook URLs, Stripe secret and restricted keys
//     (sk_live_, rk_test_, …), Tavily (tvly-), Firecrawl (fc-), Jina
//     (jina_), Hugging Face (hf_), npm (npm_);
//   - JSON Web Tokens;
//   - PEM private key blocks, also when cut short;
//   - URL and query parameters that carry credentials (token=, key=,
//     api_key=, access_token=, sig=, signature=, password=, secret=, …),
//     also in connection strings ("Password=…;");
//   - passwords in URL userinfo (postgres://user:pass@host);
//   - Authorization values (Bearer tokens, Basic credentials);
//   - high-entropy values after key-ish names (api_key: …, "secret": "…",
//     EXA_API_KEY=…).
//
// Each rule has a minimum length, and the rules for free-standing formats
// and key-ish names require what real keys have (digits and letters, mixed
// case where the format has it, enough entropy), so ordinary words, URLs,
// UUIDs and git commit hashes on their own, and short fragments of base64
// images, are left alone.
//
// # Guarantees
//
// [String] never panics, is idempotent (redacting its output changes
// nothing), and every other occurrence in the text of a value it redacted
// (of at least 8 bytes) is redacted too, so its output does not contain
// a secret it found.
package redact

import (
	"encoding/base64"
	"github.com/webgate-dev/webgate/internal/lazyre"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Kinds of secret, as they appear in markers.
const (
	KindPrivateKey   = "private-key"
	KindJWT          = "jwt"
	KindAnthropic    = "anthropic-key"
	KindOpenAI       = "openai-key"
	KindGitHub       = "github-token"
	KindGitLab       = "gitlab-token"
	KindAWS          = "aws-access-key"
	KindGoogleKey    = "google-api-key"
	KindGoogleOAuth  = "google-oauth-token"
	KindSlack        = "slack-token"
	KindSlackWebhook = "slack-webhook"
	KindStripe       = "stripe-key"
	KindTavily       = "tavily-key"
	KindFirecrawl    = "firecrawl-key"
	KindJina         = "jina-key"
	KindHuggingFace  = "huggingface-token"
	KindNPM          = "npm-token"
	KindPassword     = "password"
	KindParam        = "secret-param"
	KindBearer       = "bearer-token"
	KindBasicAuth    = "basic-auth"
	KindGeneric      = "generic-secret"
)

// Marker returns the text that replaces a secret of the given kind.
func Marker(kind string) string { return "[REDACTED:" + kind + "]" }

// rule finds one kind of secret: re matches it in context, and submatch
// group (0 for the whole match) is the secret itself.
type rule struct {
	kind  string
	re    func() *regexp.Regexp
	group int
	// ok, when set, must accept the secret.
	ok func(secret string) bool
	// hints: the rule runs only on text whose lower-case form contains
	// one of them, which spares most text most of the regular
	// expressions.
	hints []string
}

// Characters of the value of a credential parameter: anything up to a
// separator. Brackets are excluded so that a marker is never part of a
// value.
const paramValue = `[^&\s#"'<>;,()\[\]{}]`

// The rules, most specific first: when two matches overlap, the earlier
// rule names the kind.
var rules = []rule{
	{kind: KindPrivateKey, re: lazyre.New(`(?s)-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\z)`), hints: []string{"private key"}},
	{kind: KindJWT, re: lazyre.New(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*`), hints: []string{"eyj"}},
	{kind: KindAnthropic, re: lazyre.New(`\bsk-ant-[a-z0-9]{2,12}-[A-Za-z0-9_-]{32,}`), ok: mixed(32), hints: []string{"sk-ant-"}},
	{kind: KindOpenAI, re: lazyre.New(`\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{32,}`), ok: either(mixedCase(32), hexKey(32)), hints: []string{"sk-"}},
	{kind: KindGitHub, re: lazyre.New(`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{50,})`), ok: mixed(36), hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
	{kind: KindGitLab, re: lazyre.New(`\bglpat-[A-Za-z0-9_-]{20,}`), ok: mixed(20), hints: []string{"glpat-"}},
	{kind: KindAWS, re: lazyre.New(`\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b`), ok: mixed(16), hints: []string{"akia", "asia", "abia", "acca", "a3t"}},
	{kind: KindGoogleKey, re: lazyre.New(`\bAIza[0-9A-Za-z_-]{35}`), hints: []string{"aiza"}},
	{kind: KindGoogleOAuth, re: lazyre.New(`\bya29\.[0-9A-Za-z_-]{30,}`), hints: []string{"ya29."}},
	{kind: KindSlackWebhook, re: lazyre.New(`hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_+-]{20,}`), hints: []string{"hooks.slack.com"}},
	{kind: KindSlack, re: lazyre.New(`\bxox[abposr]-[A-Za-z0-9-]{10,}`), ok: mixed(10), hints: []string{"xox"}},
	{kind: KindStripe, re: lazyre.New(`\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{16,}`), ok: mixed(16), hints: []string{"_live_", "_test_", "_prod_"}},
	{kind: KindTavily, re: lazyre.New(`\btvly-(?:dev-|prod-)?[A-Za-z0-9_-]{20,}`), ok: mixed(20), hints: []string{"tvly-"}},
	{kind: KindFirecrawl, re: lazyre.New(`\bfc-[a-f0-9]{32}\b`), ok: mixed(32), hints: []string{"fc-"}},
	{kind: KindJina, re: lazyre.New(`\bjina_[A-Za-z0-9_-]{30,}`), ok: mixed(30), hints: []string{"jina_"}},
	{kind: KindHuggingFace, re: lazyre.New(`\bhf_[A-Za-z0-9]{30,}`), ok: mixedCase(30), hints: []string{"hf_"}},
	{kind: KindNPM, re: lazyre.New(`\bnpm_[A-Za-z0-9]{36}\b`), ok: mixed(36), hints: []string{"npm_"}},
	// A password in URL userinfo: scheme://user:password@host. The
	// password runs to the last "@" before the path, as URL parsers read
	// it.
	{kind: KindPassword, group: 1, re: lazyre.New(`\b[A-Za-z][A-Za-z0-9+.-]{0,20}://[^\s:/@\[\]]*:([^\s/?#\[\]]+)@`), hints: []string{"://"}},
	// password: value, PASSWORD=value, "db_password": "value".
	{kind: KindPassword, group: 1, re: lazyre.New(`(?i)\b(?:[a-z0-9]+[_.-])*(?:password|passwd)["']?\s*[:=]\s*["']?([^\s"'&;,()\[\]{}<>]{3,})`), hints: []string{"passw"}},
	// Credential parameters in URLs, query strings, form bodies and
	// connection strings; passwords count whatever their length.
	{kind: KindPassword, group: 1, re: lazyre.New(`(?i)(?:^|[?&;\s"'(,])(?:password|passwd|pwd|pass)=(` + paramValue + `+)`), hints: []string{"pass", "pwd"}},
	{kind: KindParam, group: 1, re: lazyre.New(`(?i)(?:^|[?&;#\s"'(,])(?:token|access_token|refresh_token|id_token|auth_token|session_token|private_token|key|api_key|apikey|api-key|sig|signature|secret|client_secret|x-amz-signature|x-amz-security-token|x-amz-credential|x-goog-signature|x-goog-credential|code_verifier)=(` + paramValue + `{4,})`), hints: []string{"token", "key", "sig", "secret", "code_verifier", "x-amz-", "x-goog-"}},
	// Authorization header values.
	{kind: KindBearer, group: 1, re: lazyre.New(`(?i)\b(?:bearer|token)\s+([A-Za-z0-9_\-.~+/]{16,}=*)`), ok: mixed(16), hints: []string{"bearer", "token"}},
	{kind: KindBasicAuth, group: 1, re: lazyre.New(`(?i)\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})`), ok: basicCredentials, hints: []string{"basic"}},
	// High-entropy values after key-ish names, with or without quotes:
	// api_key: …, "client_secret": "…", EXA_API_KEY=…, X-Api-Key: ….
	{kind: KindGeneric, group: 1, re: lazyre.New(`(?i)\b(?:[a-z0-9]+[_.-])*(?:api[_-]?key|apikey|secret(?:[_-]?(?:access[_-]?)?key)?|client[_-]?secret|access[_-]?(?:token|key(?:[_-]?id)?)|auth[_-]?token|refresh[_-]?token|private[_-]?key|password|passwd|credentials?|token)["']?\s*[:=]\s*["']?([A-Za-z0-9_\-+/=.~]{16,})`), ok: random(16), hints: []string{"key", "secret", "token", "passw", "credential"}},
}

// markerRE finds markers already in the text, so that redacting again
// changes nothing.
var markerRE = lazyre.New(`\[REDACTED:[a-z0-9-]{1,40}\]`)

// minRepeat is the shortest secret whose other occurrences are redacted
// too; shorter ones (a short password) would take ordinary text with
// them.
const minRepeat = 8

// maxPasses bounds the passes String makes to reach a text that redacting
// no longer changes.
const maxPasses = 4

// Match is one secret found in a text: s[Start:End] is the secret.
type Match struct {
	Kind       string
	Start, End int
}

// String returns s with every secret-like value replaced by
// [Marker](kind). Text without secrets is returned unchanged.
func String(s string) string {
	for range maxPasses {
		out := redactOnce(s)
		if out == s {
			return out
		}
		s = out
	}
	return s
}

// Find returns the secrets in s, in order, without overlaps. It does not
// report markers already in s.
func Find(s string) []Match {
	var out []Match
	for _, sp := range spans(s) {
		if sp.kind != "" {
			out = append(out, Match{Kind: sp.kind, Start: sp.start, End: sp.end})
		}
	}
	return out
}

func redactOnce(s string) string {
	sps := spans(s)
	if len(sps) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range sps {
		b.WriteString(s[last:sp.start])
		if sp.kind == "" {
			b.WriteString(s[sp.start:sp.end]) // a marker already there
		} else {
			b.WriteString(Marker(sp.kind))
		}
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// span is a region of the text to replace; kind "" is a marker that is
// already there and stays as it is.
type span struct {
	start, end int
	kind       string
}

// spans returns the disjoint regions of s to redact, in order.
func spans(s string) []span {
	lower := strings.ToLower(s)
	var sel []span
	for _, m := range markerRE().FindAllStringIndex(s, -1) {
		sel = append(sel, span{m[0], m[1], ""})
	}
	markers := len(sel)
	for _, r := range rules {
		if !slices.ContainsFunc(r.hints, func(h string) bool { return strings.Contains(lower, h) }) {
			continue
		}
		for _, m := range r.re().FindAllStringSubmatchIndex(s, -1) {
			start, end := m[2*r.group], m[2*r.group+1]
			if start < 0 || start == end || (r.ok != nil && !r.ok(s[start:end])) {
				continue
			}
			sel = add(sel, span{start, end, r.kind})
		}
	}
	if len(sel) == markers {
		return sel
	}
	// Redact every other occurrence of a secret found, so that none is
	// left in the output.
	found := map[string]string{}
	for _, sp := range sel {
		if sp.kind != "" && sp.end-sp.start >= minRepeat {
			found[s[sp.start:sp.end]] = sp.kind
		}
	}
	for secret, kind := range found {
		for i := 0; i+len(secret) <= len(s); {
			j := strings.Index(s[i:], secret)
			if j < 0 {
				break
			}
			sel = add(sel, span{i + j, i + j + len(secret), kind})
			i += j + 1
		}
	}
	slices.SortFunc(sel, func(a, b span) int { return a.start - b.start })
	return sel
}

// add merges c into the disjoint spans sel: c joins every span it
// overlaps, keeping the kind of the earlier one (rules come most specific
// first) or c's over a marker; c is dropped when it lies inside a marker.
func add(sel []span, c span) []span {
	merged := c
	kind := c.kind
	keep := sel[:0:0]
	for _, sp := range sel {
		if sp.end <= c.start || sp.start >= c.end {
			keep = append(keep, sp)
			continue
		}
		if sp.kind == "" && sp.start <= c.start && c.end <= sp.end {
			return sel // inside a marker: nothing to do
		}
		if sp.kind != "" && kind == c.kind {
			kind = sp.kind
		}
		merged.start = min(merged.start, sp.start)
		merged.end = max(merged.end, sp.end)
	}
	merged.kind = kind
	return append(keep, merged)
}

// classes reports which character classes s contains.
func classes(s string) (lower, upper, digit bool) {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	return
}

// mixed accepts values of at least n bytes with both letters and digits,
// as every generated key has.
func mixed(n int) func(string) bool {
	return func(s string) bool {
		lower, upper, digit := classes(s)
		return len(s) >= n && digit && (lower || upper)
	}
}

// mixedCase accepts values of at least n bytes with lower case, upper case
// and digits: formats whose prefix ("sk-") also starts ordinary
// hyphenated words.
func mixedCase(n int) func(string) bool {
	return func(s string) bool {
		lower, upper, digit := classes(s)
		return len(s) >= n && lower && upper && digit
	}
}

// hexKey accepts values of at least n hexadecimal digits, letters and
// digits both (keys of the sk- format that other providers issue).
func hexKey(n int) func(string) bool {
	return func(s string) bool {
		body := s[strings.LastIndexByte(s, '-')+1:]
		for _, r := range body {
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
		return len(body) >= n && mixed(n)(body)
	}
}

func either(a, b func(string) bool) func(string) bool {
	return func(s string) bool { return a(s) || b(s) }
}

// random accepts values of at least n bytes that look generated: letters
// and digits, and an entropy of at least 3 bits per character.
func random(n int) func(string) bool {
	return func(s string) bool { return mixed(n)(s) && entropy(s) >= 3 }
}

// entropy returns s's Shannon entropy in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// basicCredentials accepts base64 that decodes to printable "user:pass".
func basicCredentials(s string) bool {
	dec, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		if dec, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err != nil {
			return false
		}
	}
	if len(dec) < 3 || !strings.Contains(string(dec), ":") {
		return false
	}
	for _, r := range string(dec) {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
