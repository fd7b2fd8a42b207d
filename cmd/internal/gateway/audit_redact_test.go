package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestAudit_ClearRedactsSecrets: a log that keeps queries and URLs in
// clear keeps them as the decision log does, with their secrets redacted.
func TestAudit_ClearRedactsSecrets(t *testing.T) {
	ctx := context.Background()
	a := &Audit{Store: openStore(t, "memory:"), Clear: true}
	secrets := []string{"ZZsecretKEY12345678", "ya29.a0AfH6SMBx3kq9Lm2Qw8Zt7Vp4", "Hunter2Hunter2", "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"}
	if _, err := a.Record(ctx, AuditEntry{TokenID: "t1", Tool: "web_fetch", Decision: "answered",
		URL: "https://example.com/page?api_key=" + secrets[0] + "&access_token=" + secrets[1]}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Record(ctx, AuditEntry{TokenID: "t1", Tool: "web_search", Decision: "answered",
		Query: "password=" + secrets[2] + " " + secrets[3]}); err != nil {
		t.Fatal(err)
	}
	entries, err := a.Entries(ctx)
	if err != nil || len(entries) != 2 {
		t.Fatalf("Entries = %d, %v", len(entries), err)
	}
	for _, e := range entries {
		for _, s := range secrets {
			if strings.Contains(e.Query, s) || strings.Contains(e.URL, s) {
				t.Errorf("secret %q kept in the audit log: query %q url %q", s, e.Query, e.URL)
			}
		}
	}
	if !strings.HasPrefix(entries[0].URL, "https://example.com/page?") || !strings.Contains(entries[1].Query, "password=") {
		t.Errorf("clear text lost beyond its secrets: %q, %q", entries[0].URL, entries[1].Query)
	}
	if n, err := a.Verify(ctx); err != nil || n != 2 {
		t.Fatalf("Verify = %d, %v", n, err)
	}
}

// TestAudit_HashesKeyedAndShared: queries are hashed under a key kept in
// the store, the same for every replica, so a short query cannot be
// found by hashing guesses without it.
func TestAudit_HashesKeyedAndShared(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, "memory:")
	a1, a2 := &Audit{Store: st}, &Audit{Store: st}
	e1, err1 := a1.Record(ctx, AuditEntry{TokenID: "t1", Tool: "web_search", Decision: "answered", Query: "pin"})
	e2, err2 := a2.Record(ctx, AuditEntry{TokenID: "t1", Tool: "web_search", Decision: "answered", Query: "pin"})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	sum := sha256.Sum256([]byte("pin"))
	if e1.Query != e2.Query || strings.Contains(e1.Query, hex.EncodeToString(sum[:])) || e1.Query == "" {
		t.Fatalf("replicas hashed %q and %q; want one keyed hash, not the plain SHA-256", e1.Query, e2.Query)
	}
	other, _ := (&Audit{Store: openStore(t, "memory:")}).Record(ctx, AuditEntry{TokenID: "t1", Tool: "web_search", Decision: "answered", Query: "pin"})
	if other.Query == e1.Query {
		t.Fatal("two logs with their own keys hash a query alike")
	}
}
