package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestTokens_CreateVerifyListRevoke(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			ts := &Tokens{Store: open(t), Now: func() time.Time { return now }}
			tok, secret, err := ts.Create(ctx, NewToken{Owner: "ana", Label: "laptop", Team: "core", TTL: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(secret, TokenPrefix) || len(secret) != len(TokenPrefix)+43 {
				t.Fatalf("secret %q: want wg_ and 43 base64url characters (256 bits)", secret)
			}
			if tok.Hash != HashSecret(secret) || strings.Contains(tok.Hash, secret) {
				t.Fatalf("stored hash %q is not the secret's SHA-256", tok.Hash)
			}
			// The secret itself is nowhere in the store.
			for _, key := range []string{tokenIndexKey, tokenKeyPrefix + tok.Hash} {
				e, err := ts.Store.Get(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(e.Value), secret) || strings.Contains(string(e.Value), secret[len(TokenPrefix):]) {
					t.Fatalf("the store keeps the secret at %s", key)
				}
			}
			got, err := ts.Verify(ctx, secret)
			if err != nil || got.ID != tok.ID || got.Owner != "ana" || got.Team != "core" {
				t.Fatalf("Verify = %+v, %v", got, err)
			}
			for _, bad := range []string{"", "wg_", secret + "x", flipLast(secret), "Bearer " + secret, "nonsense"} {
				if _, err := ts.Verify(ctx, bad); !errors.Is(err, ErrUnknownToken) {
					t.Errorf("Verify(%q) = %v, want ErrUnknownToken", bad, err)
				}
			}
			tok2, secret2, err := ts.Create(ctx, NewToken{Owner: "bo"})
			if err != nil {
				t.Fatal(err)
			}
			list, err := ts.List(ctx)
			if err != nil || len(list) != 2 || list[0].ID != tok.ID || list[1].ID != tok2.ID {
				t.Fatalf("List = %v, %v", list, err)
			}
			now = now.Add(2 * time.Hour)
			if _, err := ts.Verify(ctx, secret); !errors.Is(err, ErrExpiredToken) {
				t.Fatalf("expired: %v", err)
			}
			if _, err := ts.Verify(ctx, secret2); err != nil {
				t.Fatalf("a token without expiry: %v", err)
			}
			if _, err := ts.Revoke(ctx, tok2.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := ts.Verify(ctx, secret2); !errors.Is(err, ErrRevokedToken) {
				t.Fatalf("revoked: %v", err)
			}
			if _, err := ts.Revoke(ctx, "nope"); !errors.Is(err, ErrUnknownToken) {
				t.Fatalf("revoking an unknown ID: %v", err)
			}
		})
	}
}

// Two replicas over one store see each other's tokens and revocations.
func TestTokens_SharedAcrossInstances(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t)
			a, b := &Tokens{Store: st}, &Tokens{Store: st}
			tok, secret, err := a.Create(ctx, NewToken{Owner: "ana"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.Verify(ctx, secret); err != nil {
				t.Fatal(err)
			}
			b.Revoke(ctx, tok.ID)
			if _, err := a.Verify(ctx, secret); !errors.Is(err, ErrRevokedToken) {
				t.Fatalf("revocation not seen: %v", err)
			}
		})
	}
}

// A token read is trusted for CacheFor: a revocation made through another
// instance is refused once CacheFor has passed, one made through the same
// instance at once, and a token created elsewhere is accepted at once.
func TestTokens_CacheBoundsRevocation(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t)
			now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			clock := func() time.Time { return now }
			a, b := &Tokens{Store: st, Now: clock}, &Tokens{Store: st, Now: clock}
			// a looks the secret up before it exists: nothing is kept of a miss.
			if _, err := a.Verify(ctx, "wg_unknown"); !errors.Is(err, ErrUnknownToken) {
				t.Fatal(err)
			}
			tok, secret, err := b.Create(ctx, NewToken{Owner: "ana"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Verify(ctx, secret); err != nil {
				t.Fatalf("a token created on another instance: %v", err)
			}
			if _, err := b.Verify(ctx, secret); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Revoke(ctx, tok.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Verify(ctx, secret); !errors.Is(err, ErrRevokedToken) {
				t.Fatalf("revoked through the same instance: %v", err)
			}
			now = now.Add(DefaultTokenCacheFor)
			if _, err := a.Verify(ctx, secret); !errors.Is(err, ErrRevokedToken) {
				t.Fatalf("revoked elsewhere, %v later: %v", DefaultTokenCacheFor, err)
			}
			// Without a cache every call reads the store.
			c := &Tokens{Store: st, Now: clock, CacheFor: -1}
			tok2, secret2, _ := c.Create(ctx, NewToken{Owner: "bo"})
			if _, err := c.Verify(ctx, secret2); err != nil {
				t.Fatal(err)
			}
			b.Revoke(ctx, tok2.ID)
			if _, err := c.Verify(ctx, secret2); !errors.Is(err, ErrRevokedToken) {
				t.Fatalf("no cache: %v", err)
			}
		})
	}
}

// flipLast returns s with its last character replaced by another one.
func flipLast(s string) string {
	if strings.HasSuffix(s, "A") {
		return s[:len(s)-1] + "B"
	}
	return s[:len(s)-1] + "A"
}
