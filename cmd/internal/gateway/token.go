package gateway

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/webgate-dev/webgate/store"
)

// TokenPrefix starts every token's secret, so that a secret scanner (and a
// person) can tell a webgate token from other strings.
const TokenPrefix = "wg_"

// Store keys of the tokens: one value per token at tokenKeyPrefix + the
// hex SHA-256 of its secret, and an index of every token's ID and hash.
const (
	tokenKeyPrefix = "cmd/internal/gateway/token/"
	tokenIndexKey  = "cmd/internal/gateway/tokens"
)

// Errors of token verification; [Tokens.Verify] wraps one of them.
var (
	// ErrUnknownToken: no token has this secret (or the text is not a
	// token at all).
	ErrUnknownToken = errors.New("unknown token")
	// ErrRevokedToken: the token was revoked.
	ErrRevokedToken = errors.New("revoked token")
	// ErrExpiredToken: the token's expiry has passed.
	ErrExpiredToken = errors.New("expired token")
)

// Token is what the gateway keeps of a bearer token: never its secret,
// only the SHA-256 of it.
type Token struct {
	// ID names the token in lists, logs, limits and the audit log; it is
	// not secret and does not let anyone derive the secret.
	ID string `json:"id"`
	// Hash is the hex SHA-256 of the secret.
	Hash string `json:"hash"`
	// Owner is who the token was given to (a person or a service).
	Owner string `json:"owner,omitempty"`
	// Label says what the token is for ("ci", "laptop").
	Label string `json:"label,omitempty"`
	// Team groups tokens under one team budget; empty means none.
	Team string `json:"team,omitempty"`
	// Created is when the token was created.
	Created time.Time `json:"created"`
	// Expires is when the token stops working; zero means never.
	Expires time.Time `json:"expires,omitzero"`
	// Revoked is when the token was revoked; zero while it is active.
	Revoked time.Time `json:"revoked,omitzero"`
}

// Active reports whether t may be used at now: not revoked, not expired.
func (t *Token) Active(now time.Time) bool {
	return t.Revoked.IsZero() && (t.Expires.IsZero() || now.Before(t.Expires))
}

// NewToken describes a token to create.
type NewToken struct {
	Owner, Label, Team string
	// TTL is how long the token lives; 0 means it does not expire.
	TTL time.Duration
}

// Tokens creates, lists, revokes and verifies bearer tokens kept in a
// [store.Store]: SQLite for one machine, Redis for replicas, which then
// see each other's tokens and revocations at once. Only the SHA-256 of a
// secret is stored, under a key made of it, so a token is found by its
// hash; the secret is shown once, by [Tokens.Create].
//
// [Tokens.Verify] keeps each token it has read for CacheFor, so that a
// busy caller does not cost a store read per request; a revocation made
// on another replica (or by `webgate token revoke`) is so refused within
// CacheFor, one made through this Tokens at once.
//
// A Tokens is safe for concurrent use; do not copy one after first use.
type Tokens struct {
	// Store keeps the tokens. Required.
	Store *store.Store
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// CacheFor is how long Verify trusts a token it has read from the
	// store before reading it again: the longest a revocation or expiry
	// set elsewhere takes to be seen here. 0 means
	// [DefaultTokenCacheFor]; a negative value reads the store at every
	// call.
	CacheFor time.Duration
	// StaleIfError lets Verify, when the store fails, accept a token as
	// it was when read from the store less than StaleIfError ago, so
	// that the callers of a gateway whose store is down for a moment
	// are still known; 0 means never: the store's error is returned.
	// Uses are counted by [Tokens.StaleUses].
	StaleIfError time.Duration

	mu     sync.Mutex
	cache  map[string]cachedToken // by hash
	staled atomic.Int64
}

// StaleUses returns how many times Verify accepted a token read earlier
// because the store failed (see StaleIfError).
func (ts *Tokens) StaleUses() int64 { return ts.staled.Load() }

// DefaultTokenCacheFor is how long [Tokens.Verify] trusts a token it
// has read, unless [Tokens].CacheFor says otherwise.
const DefaultTokenCacheFor = time.Second

// DefaultTokenStaleIfError is the StaleIfError of a gateway whose limits
// fail open: a token read in the last 5 minutes is still accepted while
// the store is down.
const DefaultTokenStaleIfError = 5 * time.Minute

// maxCachedTokens bounds the cache of [Tokens.Verify]; past it the cache
// starts again empty.
const maxCachedTokens = 10_000

// cachedToken is a token read from the store and when it was read.
type cachedToken struct {
	t    *Token
	read time.Time
}

// cached returns the token of hash h read less than maxAge ago (CacheFor
// when maxAge is 0).
func (ts *Tokens) cached(h string, now time.Time, maxAge time.Duration) *Token {
	if ts.CacheFor < 0 && maxAge == 0 {
		return nil
	}
	if maxAge == 0 {
		maxAge = cmp.Or(ts.CacheFor, DefaultTokenCacheFor)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	c, ok := ts.cache[h]
	if !ok {
		return nil
	}
	if d := now.Sub(c.read); d < 0 || d >= maxAge {
		return nil
	}
	return c.t
}

// remember keeps t, read at now, for [Tokens.cached].
func (ts *Tokens) remember(t *Token, now time.Time) {
	if ts.CacheFor < 0 && ts.StaleIfError <= 0 {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.cache == nil || len(ts.cache) >= maxCachedTokens {
		ts.cache = make(map[string]cachedToken)
	}
	ts.cache[t.Hash] = cachedToken{t: t, read: now}
}

// forget drops the token of hash h from the cache.
func (ts *Tokens) forget(h string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	delete(ts.cache, h)
}

func (ts *Tokens) now() time.Time {
	if ts.Now != nil {
		return ts.Now()
	}
	return time.Now()
}

// HashSecret returns the hex SHA-256 of a token's secret, the form the
// store keeps.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// Create makes a token with a fresh random 256-bit secret, keeps its hash
// and returns the token and the secret. The secret is not kept anywhere:
// the caller shows it once.
func (ts *Tokens) Create(ctx context.Context, nt NewToken) (*Token, string, error) {
	if nt.TTL < 0 {
		return nil, "", fmt.Errorf("token lifetime must not be negative, got %v", nt.TTL)
	}
	for _, f := range []string{nt.Owner, nt.Label, nt.Team} {
		if strings.ContainsFunc(f, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return nil, "", errors.New("owner, label and team must not contain control characters")
		}
	}
	for range 3 {
		var raw [32]byte
		if _, err := rand.Read(raw[:]); err != nil {
			return nil, "", err
		}
		secret := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
		h := HashSecret(secret)
		now := ts.now().UTC().Truncate(time.Second)
		t := &Token{ID: h[:12], Hash: h, Owner: nt.Owner, Label: nt.Label, Team: nt.Team, Created: now}
		if nt.TTL > 0 {
			t.Expires = now.Add(nt.TTL)
		}
		data, err := json.Marshal(t)
		if err != nil {
			return nil, "", err
		}
		// The index first: it refuses an ID already given (one chance in
		// 2^48 per token), and a token the index does not list is never
		// written.
		taken := false
		if _, err := ts.Store.Update(ctx, tokenIndexKey, 0, func(cur []byte, found bool) ([]byte, error) {
			idx, err := decodeIndex(cur, found)
			if err != nil {
				return nil, err
			}
			taken = slices.ContainsFunc(idx, func(e indexEntry) bool { return e.ID == t.ID })
			if taken {
				return cur, nil
			}
			return json.Marshal(append(idx, indexEntry{ID: t.ID, Hash: t.Hash}))
		}); err != nil {
			return nil, "", err
		}
		if taken {
			continue
		}
		if _, err := ts.Store.CompareAndSwap(ctx, tokenKeyPrefix+h, 0, data, 0); err != nil {
			return nil, "", err
		}
		return t, secret, nil
	}
	return nil, "", errors.New("could not choose a free token ID")
}

// indexEntry is one token in the index.
type indexEntry struct {
	ID   string `json:"id"`
	Hash string `json:"hash"`
}

func decodeIndex(cur []byte, found bool) ([]indexEntry, error) {
	var idx []indexEntry
	if found && len(cur) > 0 {
		if err := json.Unmarshal(cur, &idx); err != nil {
			return nil, fmt.Errorf("the token index is corrupt: %w", err)
		}
	}
	return idx, nil
}

// List returns every token, oldest first.
func (ts *Tokens) List(ctx context.Context) ([]*Token, error) {
	e, err := ts.Store.Get(ctx, tokenIndexKey)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	idx, err := decodeIndex(e.Value, true)
	if err != nil {
		return nil, err
	}
	out := make([]*Token, 0, len(idx))
	for _, ie := range idx {
		t, err := ts.byHash(ctx, ie.Hash)
		if errors.Is(err, ErrUnknownToken) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	slices.SortStableFunc(out, func(a, b *Token) int { return a.Created.Compare(b.Created) })
	return out, nil
}

// Lookup returns the token with the given ID, or an error wrapping
// [ErrUnknownToken].
func (ts *Tokens) Lookup(ctx context.Context, id string) (*Token, error) {
	all, err := ts.List(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range all {
		if t.ID == id {
			return t, nil
		}
	}
	return nil, fmt.Errorf("%w: no token has the ID %q", ErrUnknownToken, id)
}

// Revoke revokes the token with the given ID: from now on, on every
// replica, it is refused. Revoking a revoked token changes nothing.
func (ts *Tokens) Revoke(ctx context.Context, id string) (*Token, error) {
	t, err := ts.Lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	now := ts.now().UTC().Truncate(time.Second)
	var out Token
	_, err = ts.Store.Update(ctx, tokenKeyPrefix+t.Hash, 0, func(cur []byte, found bool) ([]byte, error) {
		if !found {
			return nil, fmt.Errorf("%w: token %s vanished", ErrUnknownToken, id)
		}
		if err := json.Unmarshal(cur, &out); err != nil {
			return nil, fmt.Errorf("token %s is corrupt: %w", id, err)
		}
		if out.Revoked.IsZero() {
			out.Revoked = now
		}
		return json.Marshal(&out)
	})
	ts.forget(t.Hash)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

func (ts *Tokens) byHash(ctx context.Context, h string) (*Token, error) {
	e, err := ts.Store.Get(ctx, tokenKeyPrefix+h)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrUnknownToken
	}
	if err != nil {
		return nil, err
	}
	var t Token
	if err := json.Unmarshal(e.Value, &t); err != nil {
		return nil, fmt.Errorf("a token is corrupt: %w", err)
	}
	return &t, nil
}

// dummyHash is compared with when no token has the secret's hash, so that
// an unknown secret costs the same comparison as a known one.
var dummyHash = HashSecret(TokenPrefix + "no-such-token")

// Verify returns the active token whose secret is secret. It always hashes
// what it is given, whatever its shape, looks the hash up and compares it
// in constant time with the stored hash (with a dummy when there is
// none), so that unknown and wrong secrets take the same path. Failures
// wrap [ErrUnknownToken], [ErrRevokedToken] or [ErrExpiredToken]; a store
// that fails returns its error, which callers must treat as a refusal.
//
// A token found is kept for CacheFor (see [Tokens]); secrets that match
// no token are looked up every time, so a token created on another
// replica is accepted at once.
func (ts *Tokens) Verify(ctx context.Context, secret string) (*Token, error) {
	h := HashSecret(secret)
	now := ts.now()
	t := ts.cached(h, now, 0)
	if t == nil {
		var err error
		t, err = ts.byHash(ctx, h)
		if err != nil && !errors.Is(err, ErrUnknownToken) {
			if ts.StaleIfError <= 0 {
				return nil, err
			}
			if t = ts.cached(h, now, ts.StaleIfError); t == nil {
				return nil, err
			}
			ts.staled.Add(1)
		} else if t != nil && t.Hash == h {
			ts.remember(t, now)
		}
	}
	want := dummyHash
	if t != nil {
		want = t.Hash
	}
	match := subtle.ConstantTimeCompare([]byte(h), []byte(want)) == 1
	switch {
	case t == nil || !match:
		return nil, ErrUnknownToken
	case !t.Revoked.IsZero():
		return nil, ErrRevokedToken
	case !t.Active(now):
		return nil, ErrExpiredToken
	}
	return t, nil
}
