package gateway

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/internal/redact"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/store"
	"github.com/webgate-dev/webgate/webpage"
)

// OIDC lets the gateway accept, besides its own tokens, JSON Web Tokens
// signed by an OpenID Connect issuer (Keycloak, Okta, Entra ID, Google,
// Dex…), as the MCP authorisation specification has a resource server
// do: the token's signature is checked against the issuer's published
// keys, its "iss" must be Issuer, its "aud" must name Audience, and it
// must not have expired. The caller is then a principal with an ID of its
// own ("oidc-" and a hash of issuer and subject), limited, metered and
// audited as a token is. The gateway never passes the token on.
//
// The issuer's discovery document and keys are read at the first JWT the
// gateway sees, not at start-up: a gateway whose issuer is down still
// answers its own tokens. The keys are read again when a signature matches
// none of them (the issuer rotated its keys), at most once every 30
// seconds, so that tokens made up by anyone do not make the gateway ask the
// issuer at every call.
type OIDC struct {
	// Issuer is the issuer's URL, as its tokens' "iss" claim spells it;
	// its discovery document is Issuer + "/.well-known/openid-configuration".
	Issuer string
	// Audience is the gateway's resource identifier, its public URL
	// ("https://webgate.example.com"): a token must name it in "aud"
	// (RFC 8707 resource indicators), and the protected-resource metadata
	// (RFC 9728) gives it as "resource".
	Audience string
	// TeamClaim names the claim that gives the caller's team for team
	// limits: a string, or the first string of a list ("groups").
	// Empty: callers by JWT belong to no team.
	TeamClaim string
	// Client reads the discovery document and the keys; nil means a
	// client with a 10-second timeout.
	Client *http.Client
	// Store keeps who each principal is (owner and team) for `webgate
	// stats`; nil keeps nothing.
	Store *store.Store
	// Now returns the current time; nil means time.Now.
	Now func() time.Time

	mu       sync.Mutex
	verifier *oidc.IDTokenVerifier
	keys     *keySet
	failed   time.Time // when discovery last failed
	failErr  error
	seen     map[string]bool // principals whose record this process wrote
}

// OIDCSigningAlgs are the JWS algorithms the gateway accepts: the
// asymmetric ones (a shared-secret HS256 token could be forged by anyone
// who can verify it).
var OIDCSigningAlgs = []string{
	oidc.RS256, oidc.RS384, oidc.RS512,
	oidc.ES256, oidc.ES384, oidc.ES512,
	oidc.PS256, oidc.PS384, oidc.PS512,
	oidc.EdDSA,
}

// ErrIssuerUnavailable: the issuer's discovery document could not be
// read, so no JWT can be checked now; the gateway answers 503.
var ErrIssuerUnavailable = errors.New("the OpenID Connect issuer is unavailable")

// oidcRetry is how long the gateway waits after a failed discovery before
// it asks the issuer again, and the least time between two reads of its
// keys.
const oidcRetry = 30 * time.Second

// maxJWKSBytes bounds the issuer's discovery document and key set.
const maxJWKSBytes = 1 << 20

// oidcPrincipalPrefix starts the store key of each principal's record.
const oidcPrincipalPrefix = "cmd/internal/gateway/principal/"

// oidcPrincipalTTL is how long a principal's record is kept after its
// last first-call in a process.
const oidcPrincipalTTL = 400 * 24 * time.Hour

// CheckOIDC reports what is wrong with an issuer and audience pair: both
// absolute URLs, https (or http on a loopback host, for a test issuer),
// without query or fragment.
func CheckOIDC(issuer, audience string) error {
	for _, f := range []struct{ name, v string }{{"issuer", issuer}, {"audience", audience}} {
		u, err := url.Parse(f.v)
		if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return fmt.Errorf("oidc %s %q: want an absolute https URL", f.name, redact.String(f.v))
		}
		if u.Scheme == "http" && !webpage.LoopbackHost(u.Hostname()) {
			return fmt.Errorf("oidc %s %q: want https (http only on a loopback host)", f.name, redact.String(f.v))
		}
		if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return fmt.Errorf("oidc %s %q: want a URL without user, query or fragment", f.name, redact.String(f.v))
		}
	}
	return nil
}

// looksLikeJWT reports whether a bearer secret has the three dot-separated
// parts of a compact JWS.
func looksLikeJWT(s string) bool {
	return strings.Count(s, ".") == 2 && !strings.HasPrefix(s, TokenPrefix)
}

// Verify checks a JWT and returns the principal it names as a [Token]
// (Label "oidc", no hash). An invalid token returns an error wrapping
// [ErrUnknownToken] or [ErrExpiredToken]; an issuer that cannot be read,
// [ErrIssuerUnavailable].
func (o *OIDC) Verify(ctx context.Context, raw string) (*Token, error) {
	v, keys, err := o.verifierFor(ctx)
	if err != nil {
		return nil, err
	}
	if err := keys.ensure(ctx); err != nil {
		return nil, err
	}
	idt, err := v.Verify(ctx, raw)
	if err != nil {
		var expired *oidc.TokenExpiredError
		if errors.As(err, &expired) {
			return nil, ErrExpiredToken
		}
		return nil, fmt.Errorf("%w: %s", ErrUnknownToken, sanitize.Line(err.Error()))
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnknownToken, err)
	}
	if idt.Subject == "" {
		return nil, fmt.Errorf("%w: the token names no subject", ErrUnknownToken)
	}

	owner := []string{"email", "preferred_username", "sub"}
	if v, ok := claims["email_verified"].(bool); ok && !v {
		owner = owner[1:] // an address its holder has not shown to be theirs
	}
	t := &Token{
		ID:      "oidc-" + HashSecret(idt.Issuer + "\x00" + idt.Subject)[:16],
		Owner:   sanitize.Line(firstString(claims, owner...)),
		Label:   "oidc",
		Expires: idt.Expiry,
	}
	if o.TeamClaim != "" {
		t.Team = sanitize.Line(firstString(claims, o.TeamClaim))
	}
	o.remember(ctx, t)
	return t, nil
}

// firstString returns the first of the claims names that holds a
// non-empty string, or the first string of a list.
func firstString(claims map[string]any, names ...string) string {
	for _, n := range names {
		switch v := claims[n].(type) {
		case string:
			if v != "" {
				return v
			}
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok && s != "" {
					return s
				}
			}
		}
	}
	return ""
}

// verifierFor returns the verifier and its key set, reading the issuer's
// discovery document the first time and again oidcRetry after a failure.
func (o *OIDC) verifierFor(ctx context.Context) (*oidc.IDTokenVerifier, *keySet, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.verifier != nil {
		return o.verifier, o.keys, nil
	}
	now := defaults.Now(o.Now)
	if !o.failed.IsZero() && now.Sub(o.failed) < oidcRetry {
		return nil, nil, o.failErr
	}
	client := o.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	dctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, client), 10*time.Second)
	defer cancel()
	p, err := oidc.NewProvider(dctx, o.Issuer)
	var doc struct {
		JWKSURL string `json:"jwks_uri"`
	}
	if err == nil {
		if err = p.Claims(&doc); err == nil && doc.JWKSURL == "" {
			err = errors.New("the discovery document names no jwks_uri")
		}
	}
	if err != nil {
		o.failed, o.failErr = now, fmt.Errorf("%w: %s", ErrIssuerUnavailable, sanitize.Line(err.Error()))
		return nil, nil, o.failErr
	}
	o.keys = &keySet{url: doc.JWKSURL, client: client, now: o.Now}
	o.verifier = oidc.NewVerifier(o.Issuer, o.keys, &oidc.Config{
		ClientID:             o.Audience,
		SupportedSigningAlgs: OIDCSigningAlgs,
		Now:                  o.Now,
	})
	return o.verifier, o.keys, nil
}

// keySet verifies signatures with the issuer's published keys, read from
// its jwks_uri at the first token and again when a signature matches none
// of them, but at most once per oidcRetry: tokens naming made-up keys do
// not make the gateway ask the issuer at every call.
type keySet struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu   sync.Mutex
	keys *oidc.StaticKeySet
	read time.Time // when the keys were last read, or tried
	err  error     // why the last read failed
}

// ensure reads the keys if none has been read yet; while none could be,
// it returns an error wrapping [ErrIssuerUnavailable].
func (k *keySet) ensure(ctx context.Context) error {
	_, err := k.refresh(ctx, true)
	return err
}

// VerifySignature implements oidc.KeySet.
func (k *keySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	k.mu.Lock()
	keys := k.keys
	k.mu.Unlock()
	if keys != nil {
		if payload, err := keys.VerifySignature(ctx, jwt); err == nil {
			return payload, nil
		}
	}
	// The issuer may have rotated its keys since they were read.
	fresh, err := k.refresh(ctx, false)
	if err != nil {
		return nil, err
	}
	if fresh == nil || fresh == keys {
		return nil, errors.New("no key of the issuer verifies the token")
	}
	return fresh.VerifySignature(ctx, jwt)
}

// refresh reads the keys again unless they were read (or tried) less than
// oidcRetry ago; onlyFirst reads them only if none has been read. It
// returns the keys held afterwards.
func (k *keySet) refresh(ctx context.Context, onlyFirst bool) (*oidc.StaticKeySet, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := defaults.Now(k.now)
	if (onlyFirst && k.keys != nil) || (!k.read.IsZero() && now.Sub(k.read) < oidcRetry) {
		if k.keys == nil {
			return nil, k.err
		}
		return k.keys, nil
	}
	k.read = now
	keys, err := k.fetch(ctx)
	if err != nil {
		k.err = fmt.Errorf("%w: reading its keys: %s", ErrIssuerUnavailable, sanitize.Line(err.Error()))
		if k.keys == nil {
			return nil, k.err
		}
		return k.keys, nil // the keys read before still serve
	}
	k.keys, k.err = keys, nil
	return keys, nil
}

// fetch reads the key set: the public signing keys it lists.
func (k *keySet) fetch(ctx context.Context) (*oidc.StaticKeySet, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", k.url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", k.url, resp.Status)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJWKSBytes)).Decode(&set); err != nil {
		return nil, fmt.Errorf("%s: %v", k.url, err)
	}
	keys := &oidc.StaticKeySet{}
	for _, key := range set.Keys {
		if key.Use == "enc" || !key.IsPublic() {
			continue
		}
		switch pub := key.Key.(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
			keys.PublicKeys = append(keys.PublicKeys, pub)
		}
	}
	if len(keys.PublicKeys) == 0 {
		return nil, fmt.Errorf("%s lists no public signing key", k.url)
	}
	return keys, nil
}

// principal is what the store keeps of a principal, for `webgate stats`.
type principal struct {
	Owner string `json:"owner,omitempty"`
	Team  string `json:"team,omitempty"`
}

// remember writes t's principal record once per process (and again when
// its owner or team changes).
func (o *OIDC) remember(ctx context.Context, t *Token) {
	if o.Store == nil {
		return
	}
	key := t.ID + "\x00" + t.Owner + "\x00" + t.Team
	o.mu.Lock()
	if o.seen[key] {
		o.mu.Unlock()
		return
	}
	if o.seen == nil || len(o.seen) > maxCachedTokens {
		o.seen = make(map[string]bool)
	}
	o.seen[key] = true
	o.mu.Unlock()
	data, err := json.Marshal(principal{Owner: t.Owner, Team: t.Team})
	if err == nil {
		err = o.Store.Set(ctx, oidcPrincipalPrefix+t.ID, data, oidcPrincipalTTL)
	}
	if err != nil {
		// Written at the next first call; stats shows the ID meanwhile.
		o.mu.Lock()
		delete(o.seen, key)
		o.mu.Unlock()
	}
}

// principalOf returns the owner and team the store keeps for an "oidc-"
// ID, empty when it keeps none.
func principalOf(ctx context.Context, st *store.Store, id string) principal {
	var p principal
	if !strings.HasPrefix(id, "oidc-") {
		return p
	}
	if e, err := st.Get(ctx, oidcPrincipalPrefix+id); err == nil {
		_ = json.Unmarshal(e.Value, &p)
	}
	return p
}

// ProtectedResourcePath is where the gateway publishes its OAuth 2.0
// protected-resource metadata (RFC 9728) when OIDC is configured.
const ProtectedResourcePath = "/.well-known/oauth-protected-resource"

// metadataURL returns the URL of the protected-resource metadata of the
// audience: the well-known path inserted before the audience's own path,
// as RFC 9728 section 3 says.
func (o *OIDC) metadataURL() string {
	u, err := url.Parse(o.Audience)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + ProtectedResourcePath + strings.TrimRight(u.EscapedPath(), "/")
}

// serveMetadata answers the protected-resource metadata.
func (o *OIDC) serveMetadata(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "max-age=3600")
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 o.Audience,
		"authorization_servers":    []string{o.Issuer},
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "webgate",
	})
}
