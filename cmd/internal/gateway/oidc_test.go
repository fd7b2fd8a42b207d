package gateway

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/coreos/go-oidc/v3/oidc/oidctest"
)

// issuer is an OpenID Connect issuer on 127.0.0.1 (discovery document
// and keys, as the specification has them) that signs tokens with its
// key; it counts the requests it serves.
type issuer struct {
	url   string
	key   *ecdsa.PrivateKey
	calls atomic.Int64
	jwks  atomic.Int64
	down  atomic.Bool
	srv   atomic.Pointer[oidctest.Server]
}

// publish makes key the one key the issuer publishes, as "k1".
func (is *issuer) publish(key *ecdsa.PrivateKey) {
	s := &oidctest.Server{
		PublicKeys: []oidctest.PublicKey{{PublicKey: key.Public(), KeyID: "k1", Algorithm: oidc.ES256}},
		Algorithms: []string{oidc.ES256},
	}
	s.SetIssuer(is.url)
	is.key = key
	is.srv.Store(s)
}

func startIssuer(t *testing.T) *issuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		is.calls.Add(1)
		if strings.Contains(r.URL.Path, "keys") {
			is.jwks.Add(1)
		}
		if is.down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		is.srv.Load().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	is.url = srv.URL
	is.publish(key)
	return is
}

// sign returns a token of claims, with "iss" and "exp" (an hour ahead)
// unless claims sets them.
func (is *issuer) sign(t *testing.T, claims map[string]any) string {
	t.Helper()
	c := map[string]any{"iss": is.url, "exp": time.Now().Add(time.Hour).Unix()}
	for k, v := range claims {
		c[k] = v
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return oidctest.SignIDToken(is.key, "k1", oidc.ES256, string(b))
}

const testAudience = "https://webgate.example.com"

func TestServer_OIDCTokens(t *testing.T) {
	ctx := context.Background()
	is := startIssuer(t)
	st := openStore(t, "memory:")
	audit := &Audit{Store: st}
	f := newFixture(t, st, Options{
		OIDC:    &OIDC{Issuer: is.url, Audience: testAudience, TeamClaim: "groups", Store: st},
		Limiter: &Limiter{Store: st, Team: Limits{RequestsPerDay: 3}},
		Audit:   audit,
	})
	good := is.sign(t, map[string]any{"sub": "u-1", "aud": testAudience, "email": "ana@example.com", "groups": []string{"core", "ops"}})
	resp, body := post(t, f.url+"/v1/search", good, `{"query":"jwt"}`)
	if resp.StatusCode != 200 || !strings.Contains(body, "Result for jwt") {
		t.Fatalf("a valid JWT: %d %s", resp.StatusCode, body)
	}

	// Refused, each with 401 and where the metadata is.
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	forged, _ := json.Marshal(map[string]any{"iss": is.url, "sub": "u-1", "aud": testAudience, "exp": time.Now().Add(time.Hour).Unix()})
	tampered := []byte(good)
	tampered[len(tampered)-5] ^= 1
	for name, tok := range map[string]string{
		"wrong audience": is.sign(t, map[string]any{"sub": "u-1", "aud": "https://other.example.com"}),
		"no audience":    is.sign(t, map[string]any{"sub": "u-1"}),
		"expired":        is.sign(t, map[string]any{"sub": "u-1", "aud": testAudience, "exp": time.Now().Add(-time.Minute).Unix()}),
		"other issuer":   is.sign(t, map[string]any{"sub": "u-1", "aud": testAudience, "iss": "https://evil.example.com"}),
		"other key":      oidctest.SignIDToken(other, "k1", oidc.ES256, string(forged)),
		"tampered":       string(tampered),
		"no subject":     is.sign(t, map[string]any{"aud": testAudience}),
		"not a JWT":      "a.b.c",
	} {
		resp, body := post(t, f.url+"/v1/search", tok, `{"query":"jwt"}`)
		wa := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != 401 || !strings.Contains(wa, `error="invalid_token"`) ||
			!strings.Contains(wa, `resource_metadata="https://webgate.example.com/.well-known/oauth-protected-resource"`) {
			t.Errorf("%s: %d %q %s, want 401 with the metadata's URL", name, resp.StatusCode, wa, body)
		}
	}
	if resp, _ := post(t, f.url+"/v1/search", "", `{"query":"jwt"}`); !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("no token: WWW-Authenticate %q lacks resource_metadata", resp.Header.Get("WWW-Authenticate"))
	}
	// The gateway's own tokens still work beside JWTs.
	if resp, body := post(t, f.url+"/v1/search", f.secret, `{"query":"own"}`); resp.StatusCode != 200 {
		t.Fatalf("own token beside OIDC: %d %s", resp.StatusCode, body)
	}
	if n := f.search.calls.Load(); n != 2 {
		t.Fatalf("provider called %d times, want 2 (refused tokens never reach it)", n)
	}

	// The principal is limited by its team claim's first group: "core",
	// the own token's team too, so the team's third request is its last.
	if resp, _ := post(t, f.url+"/v1/search", good, `{"query":"jwt 2"}`); resp.StatusCode != 200 {
		t.Fatalf("third team request: %d", resp.StatusCode)
	}
	if resp, _ := post(t, f.url+"/v1/search", good, `{"query":"jwt 3"}`); resp.StatusCode != 429 {
		t.Fatalf("fourth team request: %d, want 429 (team budget 3)", resp.StatusCode)
	}

	// Audit and stats name the principal, never the token.
	f.flush(t)
	entries, err := audit.Entries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 || !strings.HasPrefix(entries[0].TokenID, "oidc-") {
		t.Fatalf("audit entries %+v, want the first by an oidc- principal", entries)
	}
	raw, _ := json.Marshal(entries)
	if strings.Contains(string(raw), good) {
		t.Fatal("the JWT is in the audit log")
	}
	rows, err := ReadUsage(ctx, st, time.Now().Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, r := range rows {
		if r.Token == entries[0].TokenID {
			found = true
			if r.Owner != "ana@example.com" || r.Team != "core" || r.Label != "oidc" || r.Requests != 2 {
				t.Errorf("usage of the principal: %+v", r)
			}
		}
	}
	if !found {
		t.Fatalf("usage %+v lacks the principal %s", rows, entries[0].TokenID)
	}
}

func TestServer_OIDCMetadata(t *testing.T) {
	is := startIssuer(t)
	st := openStore(t, "memory:")
	f := newFixture(t, st, Options{OIDC: &OIDC{Issuer: is.url, Audience: testAudience + "/mcp"}})
	for _, path := range []string{ProtectedResourcePath, ProtectedResourcePath + "/mcp"} {
		resp, err := http.Get(f.url + path)
		if err != nil {
			t.Fatal(err)
		}
		var md struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			BearerMethods        []string `json:"bearer_methods_supported"`
		}
		err = json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || md.Resource != testAudience+"/mcp" ||
			len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != is.url || len(md.BearerMethods) != 1 {
			t.Fatalf("GET %s: %d %+v %v", path, resp.StatusCode, md, err)
		}
	}
	resp, _ := post(t, f.url+"/mcp", "", `{}`)
	if wa := resp.Header.Get("WWW-Authenticate"); !strings.Contains(wa, `resource_metadata="https://webgate.example.com/.well-known/oauth-protected-resource/mcp"`) {
		t.Fatalf("WWW-Authenticate %q: want the metadata URL with the resource's path (RFC 9728 section 3)", wa)
	}
	// Without OIDC there is no metadata.
	plain := newFixture(t, st, Options{})
	if resp, err := http.Get(plain.url + ProtectedResourcePath); err != nil || resp.StatusCode != 404 {
		t.Fatalf("metadata without OIDC: %v %v, want 404", resp, err)
	}
}

// An issuer that is down answers 503 (the call may be retried) without
// asking it again at every call, and the gateway's own tokens keep
// working; once it is back (after oidcRetry), JWTs are checked again.
func TestServer_OIDCIssuerDown(t *testing.T) {
	is := startIssuer(t)
	is.down.Store(true)
	st := openStore(t, "memory:")
	now := time.Now()
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	o := &OIDC{Issuer: is.url, Audience: testAudience, Now: func() time.Time { return time.Unix(0, clock.Load()) }}
	f := newFixture(t, st, Options{OIDC: o})
	tok := is.sign(t, map[string]any{"sub": "u-2", "aud": testAudience})
	for range 3 {
		resp, body := post(t, f.url+"/v1/search", tok, `{"query":"x"}`)
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("issuer down: %d %q %s, want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	if n := is.calls.Load(); n != 1 {
		t.Fatalf("the issuer was asked %d times for 3 calls, want 1", n)
	}
	if resp, _ := post(t, f.url+"/v1/search", f.secret, `{"query":"own"}`); resp.StatusCode != 200 {
		t.Fatalf("own token with the issuer down: %d", resp.StatusCode)
	}
	is.down.Store(false)
	clock.Add(int64(oidcRetry + time.Second))
	if resp, body := post(t, f.url+"/v1/search", tok, `{"query":"x"}`); resp.StatusCode != 200 {
		t.Fatalf("issuer back: %d %s", resp.StatusCode, body)
	}
}

func TestCheckOIDC(t *testing.T) {
	for _, c := range []struct {
		issuer, audience string
		ok               bool
	}{
		{"https://id.example.com/realms/team", "https://webgate.example.com", true},
		{"http://127.0.0.1:8080", "http://localhost:8787/mcp", true},
		{"http://id.example.com", "https://webgate.example.com", false},
		{"https://id.example.com", "", false},
		{"", "https://webgate.example.com", false},
		{"https://id.example.com", "https://webgate.example.com/?x=1", false},
		{"https://user@id.example.com", "https://webgate.example.com", false},
		{"id.example.com", "https://webgate.example.com", false},
	} {
		if err := CheckOIDC(c.issuer, c.audience); (err == nil) != c.ok {
			t.Errorf("CheckOIDC(%q, %q) = %v, want ok %v", c.issuer, c.audience, err, c.ok)
		}
	}
}

// The JWT a caller sends is never passed to a provider: the provider
// sees only what the gateway's own configuration gives it.
func TestServer_OIDCTokenNotPassedOn(t *testing.T) {
	is := startIssuer(t)
	var seen atomic.Value
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(fmt.Sprint(r.Header))
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body><main><h1>Page</h1><p>"+strings.Repeat("words ", 60)+"</p></main></body></html>")
	}))
	defer page.Close()
	st := openStore(t, "memory:")
	f := newFixture(t, st, Options{OIDC: &OIDC{Issuer: is.url, Audience: testAudience}, AllowPrivate: []string{"127.0.0.1"}})
	tok := is.sign(t, map[string]any{"sub": "u-3", "aud": testAudience})
	resp, body := post(t, f.url+"/v1/fetch", tok, `{"url":`+strconv.Quote(page.URL+"/p")+`}`)
	if resp.StatusCode != 200 {
		t.Fatalf("fetch with a JWT: %d %s", resp.StatusCode, body)
	}
	h, _ := seen.Load().(string)
	if h == "" || strings.Contains(h, tok) || strings.Contains(h, "Bearer") {
		t.Fatalf("the page server saw %q", h)
	}
}

// Tokens signed by keys the issuer does not publish (anyone can make
// them) do not make the gateway read the issuer's keys at every call: at
// most once per 30 s. A key the issuer rotated in is read then.
func TestServer_OIDCUnknownKeysDoNotFloodTheIssuer(t *testing.T) {
	is := startIssuer(t)
	st := openStore(t, "memory:")
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	f := newFixture(t, st, Options{OIDC: &OIDC{Issuer: is.url, Audience: testAudience, Now: func() time.Time { return time.Unix(0, clock.Load()) }}})
	if resp, body := post(t, f.url+"/v1/search", is.sign(t, map[string]any{"sub": "u-1", "aud": testAudience}), `{"query":"x"}`); resp.StatusCode != 200 {
		t.Fatalf("valid token: %d %s", resp.StatusCode, body)
	}
	claims, _ := json.Marshal(map[string]any{"iss": is.url, "sub": "u-1", "aud": testAudience, "exp": time.Now().Add(time.Hour).Unix()})
	for i := range 40 {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tok := oidctest.SignIDToken(k, fmt.Sprintf("made-up-%d", i), oidc.ES256, string(claims))
		if resp, _ := post(t, f.url+"/v1/search", tok, `{"query":"x"}`); resp.StatusCode != 401 {
			t.Fatalf("token %d of an unknown key: %d, want 401", i, resp.StatusCode)
		}
	}
	if n := is.jwks.Load(); n != 1 {
		t.Fatalf("the issuer's keys were read %d times for 41 tokens in 30 s, want 1", n)
	}
	// The issuer rotates its key; a token signed with the new one is
	// refused until 30 s after the last read, then read and accepted.
	k2, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is.publish(k2)
	rotated := is.sign(t, map[string]any{"sub": "u-1", "aud": testAudience})
	clock.Add(int64(oidcRetry + time.Second))
	if resp, body := post(t, f.url+"/v1/search", rotated, `{"query":"x"}`); resp.StatusCode != 200 {
		t.Fatalf("token of the rotated key: %d %s", resp.StatusCode, body)
	}
	if n := is.jwks.Load(); n != 2 {
		t.Fatalf("keys read %d times, want 2", n)
	}
}

// The owner a principal is shown as: its email unless the issuer says
// the address is not verified, then its user name, then its subject.
func TestOIDC_Owner(t *testing.T) {
	is := startIssuer(t)
	o := &OIDC{Issuer: is.url, Audience: testAudience}
	for _, c := range []struct {
		claims map[string]any
		want   string
	}{
		{map[string]any{"email": "ana@example.com", "preferred_username": "ana"}, "ana@example.com"},
		{map[string]any{"email": "ana@example.com", "email_verified": true, "preferred_username": "ana"}, "ana@example.com"},
		{map[string]any{"email": "boss@example.com", "email_verified": false, "preferred_username": "mallory"}, "mallory"},
		{map[string]any{"email": "boss@example.com", "email_verified": false}, "u-9"},
	} {
		c.claims["sub"], c.claims["aud"] = "u-9", testAudience
		tok, err := o.Verify(context.Background(), is.sign(t, c.claims))
		if err != nil || tok.Owner != c.want || !strings.HasPrefix(tok.ID, "oidc-") || len(tok.ID) != len("oidc-")+16 {
			t.Errorf("claims %v: %+v %v, want owner %q", c.claims, tok, err, c.want)
		}
	}
}
