package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/webgate-dev/webgate/store"
)

func TestAudit_ChainAcrossReplicasAndVerify(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t)
			a1, a2 := &Audit{Store: st}, &Audit{Store: st}
			var wg sync.WaitGroup
			for i := range 40 {
				a := a1
				if i%2 == 1 {
					a = a2
				}
				wg.Go(func() {
					if _, err := a.Record(ctx, AuditEntry{TokenID: "t1", Tool: "web_search", Decision: "answered", Providers: []string{"tavily"}, Credits: 1, Query: "secret plans"}); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			n, err := a1.Verify(ctx)
			if err != nil || n != 40 {
				t.Fatalf("Verify = %d, %v; want 40 entries, intact", n, err)
			}
			entries, _ := a1.Entries(ctx)
			if strings.Contains(entries[0].Query, "secret") || !strings.HasPrefix(entries[0].Query, "hmac-sha256:") {
				t.Fatalf("query kept in clear: %q", entries[0].Query)
			}
		})
	}
}

func TestVerifyChain_FindsTampering(t *testing.T) {
	ctx := context.Background()
	a := &Audit{Store: openStore(t, "memory:"), Clear: true}
	for _, q := range []string{"a", "b", "c", "d", "e"} {
		if _, err := a.Record(ctx, AuditEntry{TokenID: "t1", Tool: "web_search", Decision: "answered", Query: q}); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := a.Entries(ctx)
	seq, head, _ := a.Head(ctx)
	if err := VerifyChain(entries, seq, head); err != nil {
		t.Fatal(err)
	}
	if entries[0].Query != "a" {
		t.Fatalf("Clear: query %q", entries[0].Query)
	}
	clone := func() []AuditEntry { return append([]AuditEntry(nil), entries...) }
	cases := map[string]func() []AuditEntry{
		"edited": func() []AuditEntry { e := clone(); e[2].Decision = "denied"; return e },
		"edited with its hash redone": func() []AuditEntry {
			e := clone()
			e[2].TokenID = "t2"
			e[2].Hash = e[2].digest()
			return e
		},
		"removed from the middle": func() []AuditEntry { e := clone(); return append(e[:2], e[3:]...) },
		"removed at the end":      func() []AuditEntry { e := clone(); return e[:4] },
		"reordered": func() []AuditEntry {
			e := clone()
			e[1], e[2] = e[2], e[1]
			e[1].Seq, e[2].Seq = e[2].Seq, e[1].Seq
			return e
		},
		"duplicated": func() []AuditEntry { e := clone(); return append(e, e[1]) },
	}
	for name, tamper := range cases {
		if err := VerifyChain(tamper(), seq, head); !errors.Is(err, ErrTampered) {
			t.Errorf("%s: VerifyChain = %v, want ErrTampered", name, err)
		}
	}
	// Log order does not matter: replicas may append out of order.
	e := clone()
	e[1], e[2] = e[2], e[1]
	if err := VerifyChain(e, seq, head); err != nil {
		t.Errorf("entries out of log order but chained: %v", err)
	}
}

// A log longer than one page of the store's list is read, and verified,
// whole: an entry edited among the oldest is found.
func TestAudit_VerifiesALongLogWhole(t *testing.T) {
	const n = 1205
	ctx := context.Background()
	st := openStore(t, "memory:")
	a := &Audit{Store: st}
	for i := range n {
		if _, err := a.Record(ctx, AuditEntry{TokenID: "t1", Tool: "web_search", Decision: "answered", Credits: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := a.Verify(ctx)
	if err != nil || got != n {
		t.Fatalf("Verify = %d, %v; want %d entries, intact", got, err, n)
	}
	entries, _ := a.Entries(ctx)
	if len(entries) != n || entries[0].Seq != 1 {
		t.Fatalf("Entries: %d from seq %d; want %d from 1", len(entries), entries[0].Seq, n)
	}
	entries[10].Decision = "denied"
	seq, head, _ := a.Head(ctx)
	if err := VerifyChain(entries, seq, head); !errors.Is(err, ErrTampered) {
		t.Fatalf("an old entry edited: %v", err)
	}
}

// A batch is written as one record of the log, whatever its size (split
// past 64 KiB), and read back, and verified, entry by entry, among records
// of one entry.
func TestAudit_BatchIsOneRecord(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, "memory:")
	a := &Audit{Store: st, Clear: true}
	if _, err := a.Record(ctx, AuditEntry{TokenID: "t1", Tool: "web_search", Decision: "answered", Query: "alone"}); err != nil {
		t.Fatal(err)
	}
	var batch []AuditEntry
	for i := range 300 {
		batch = append(batch, AuditEntry{TokenID: "t1", Tool: "web_search", Decision: "answered", Query: fmt.Sprintf("q%d %s", i, strings.Repeat("x", 400))})
	}
	if _, err := a.RecordBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	recs, err := st.List(ctx, auditLog, store.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	// 300 entries of about 700 bytes: a few records of at most 64 KiB,
	// not 300.
	if len(recs) < 1+2 || len(recs) > 1+5 {
		t.Errorf("%d records for one entry and a batch of 300 (about 200 KiB), want 1 and 2 to 5", len(recs))
	}
	for _, r := range recs {
		if len(r.Data) > 64<<10 {
			t.Errorf("record %d has %d bytes, over 64 KiB", r.ID, len(r.Data))
		}
	}
	n, err := a.Verify(ctx)
	if err != nil || n != 301 {
		t.Fatalf("Verify = %d, %v; want 301 entries, intact", n, err)
	}
	entries, _ := a.Entries(ctx)
	if entries[0].Query != "alone" || entries[300].Query != batch[299].Query {
		t.Errorf("entries out of order: first %q, last %q", entries[0].Query, entries[300].Query[:4])
	}
}
