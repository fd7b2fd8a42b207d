package gateway

import (
	"bytes"
	"context"
	"crypto/hmac"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/webgate-dev/webgate/internal/redact"
	"github.com/webgate-dev/webgate/store"
)

// Store names of the audit log: the log of entries and the chain's head.
const (
	auditLog     = "cmd/internal/gateway/audit"
	auditHeadKey = "cmd/internal/gateway/audit-head"
)

// DefaultAuditRetention keeps the newest million records of the log (at
// least a million entries: a record holds one entry, or the entries of a
// batch) for a year.
var DefaultAuditRetention = store.Retention{MaxRecords: 1_000_000, MaxAge: 366 * 24 * time.Hour}

// AuditEntry is one call in the audit log. Query and URL are the
// HMAC-SHA-256 of the call's query and URL under the log's key (hex,
// [Audit].Key) unless the log keeps them in clear
// (their secrets redacted).
type AuditEntry struct {
	Seq       int64     `json:"seq"`
	Time      time.Time `json:"time"`
	TokenID   string    `json:"token"`
	Tool      string    `json:"tool"`
	Decision  string    `json:"decision"`
	Providers []string  `json:"providers,omitempty"`
	Credits   int64     `json:"credits"`
	Query     string    `json:"query,omitempty"`
	URL       string    `json:"url,omitempty"`
	// Prev is the Hash of the entry before (Seq-1); "" for the first.
	Prev string `json:"prev"`
	// Hash is the hex SHA-256 of the entry's JSON with Hash empty.
	Hash string `json:"hash"`
}

// digest returns the hash e should carry.
func (e AuditEntry) digest() string {
	e.Hash = ""
	b, _ := json.Marshal(e)
	sum := sha256.Sum256(b)
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// auditHead is the chain's newest entry, kept with compare-and-swap so
// that replicas appending at once extend one chain and never fork it.
type auditHead struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
}

// Audit is the tamper-evident log of the gateway's calls: each entry
// carries the hash of the one before it, and the chain's head (the
// newest entry's number and hash) is moved by compare-and-swap, so that
// every replica sharing the store extends one chain. [Audit.Verify] finds
// an entry edited, removed or reordered.
//
// An entry is written in two steps, the head and then the record; a
// replica that dies between them (killed, not shut down) leaves a gap
// that Verify reports as entries missing: the chain cannot tell them from
// entries removed.
// [Audit.RecordBatch] writes several entries with one move of the head
// and one record (so a replica killed between the two loses the batch
// whole).
type Audit struct {
	// Store keeps the log. Required.
	Store *store.Store
	// Clear keeps queries and URLs in clear instead of their SHA-256,
	// with the secrets they carry (an API key in a URL's query, a
	// password in a search) redacted as the decision log redacts them.
	Clear bool
	// Retention bounds the log's records (one entry each, or a batch's
	// entries); zero means [DefaultAuditRetention]. Verify checks the
	// chain from the oldest entry kept.
	Retention store.Retention
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Key keys the hashes of queries and URLs (HMAC-SHA-256), so that
	// whoever reads the log cannot find a short query by hashing guesses.
	// Nil means a random key kept in Store, made by the first replica
	// that needs it and read by every other.
	Key []byte

	keyMu sync.Mutex
	key   []byte
}

// auditKeyKey is the store name of the key the log hashes with.
const auditKeyKey = "cmd/internal/gateway/audit-key"

// hashKey returns the key the log hashes queries and URLs with.
func (a *Audit) hashKey(ctx context.Context) ([]byte, error) {
	if a.Key != nil {
		return a.Key, nil
	}
	a.keyMu.Lock()
	defer a.keyMu.Unlock()
	if a.key != nil {
		return a.key, nil
	}
	for range 3 {
		cur, err := a.Store.Get(ctx, auditKeyKey)
		if err == nil && len(cur.Value) >= 16 {
			a.key = cur.Value
			return a.key, nil
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		k := make([]byte, 32)
		_, _ = crand.Read(k)
		if _, err := a.Store.CompareAndSwap(ctx, auditKeyKey, 0, k, 0); err == nil {
			a.key = k
			return k, nil
		} else if !errors.Is(err, store.ErrConflict) {
			return nil, err
		}
	}
	return nil, errors.New("the audit log's key could not be read")
}

// hashText returns what the log keeps of a query or URL: its HMAC by m
// (an HMAC-SHA256 under the log's key, reused for every text of a
// batch), or, when Clear, the text with its secrets redacted.
func (a *Audit) hashText(m hash.Hash, s string) string {
	if s == "" {
		return s
	}
	if a.Clear {
		return redact.String(s)
	}
	m.Reset()
	io.WriteString(m, s)
	var sum [sha256.Size]byte
	const prefix = "hmac-sha256:"
	var out [len(prefix) + 2*sha256.Size]byte
	copy(out[:], prefix)
	hex.Encode(out[len(prefix):], m.Sum(sum[:0]))
	return string(out[:])
}

// Record appends e to the log (its Seq, Time, Prev and Hash are set
// here; its Query and URL are hashed unless Clear) and returns it.
func (a *Audit) Record(ctx context.Context, e AuditEntry) (AuditEntry, error) {
	out, err := a.RecordBatch(ctx, []AuditEntry{e})
	if len(out) == 1 {
		e = out[0]
	}
	return e, err
}

// RecordBatch appends entries to the log in their order, as Record does
// one, and returns them. The chain's head is moved once for the whole
// batch and the entries are written as one record (a JSON array; several
// past 64 KiB), so that a busy gateway pays one compare-and-swap and one
// write per batch, not per entry.
func (a *Audit) RecordBatch(ctx context.Context, entries []AuditEntry) ([]AuditEntry, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	es := slices.Clone(entries)
	var mac hash.Hash
	if !a.Clear {
		key, err := a.hashKey(ctx)
		if err != nil {
			return es, err
		}
		mac = hmac.New(sha256.New, key)
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	for i := range es {
		es[i].Query, es[i].URL = a.hashText(mac, es[i].Query), a.hashText(mac, es[i].URL)
		if es[i].Time.IsZero() {
			es[i].Time = now().UTC()
		}
	}
	for attempt := 0; ; attempt++ {
		var head auditHead
		var version int64
		cur, err := a.Store.Get(ctx, auditHeadKey)
		switch {
		case err == nil:
			if err := json.Unmarshal(cur.Value, &head); err != nil {
				return es, fmt.Errorf("the audit log's head is corrupt: %w", err)
			}
			version = cur.Version
		case !errors.Is(err, store.ErrNotFound):
			return es, err
		}
		for i := range es {
			es[i].Seq, es[i].Prev = head.Seq+1, head.Hash
			es[i].Hash = es[i].digest()
			head = auditHead{Seq: es[i].Seq, Hash: es[i].Hash}
		}
		next, _ := json.Marshal(head)
		if _, err = a.Store.CompareAndSwap(ctx, auditHeadKey, version, next, 0); err == nil {
			break
		} else if !errors.Is(err, store.ErrConflict) {
			return es, err
		}
		wait := time.Duration(rand.Int64N(int64(time.Millisecond<<min(attempt, 5)) + 1))
		select {
		case <-ctx.Done():
			return es, ctx.Err()
		case <-time.After(wait):
		}
	}
	keep := a.Retention
	if keep.MaxRecords <= 0 && keep.MaxAge <= 0 {
		keep = DefaultAuditRetention
	}
	var errs []error
	for _, data := range auditRecords(es) {
		if _, err := a.Store.Append(context.WithoutCancel(ctx), auditLog, data, keep); err != nil {
			errs = append(errs, err)
		}
	}
	return es, errors.Join(errs...)
}

// maxAuditRecord is the size past which a batch's entries are split over
// several records; an entry larger than it has a record of its own.
const maxAuditRecord = 64 << 10

// auditRecords returns the log records that keep es, in order: one entry
// is one JSON object (as every record was before batches); several are a
// JSON array of them, up to maxAuditRecord bytes each, so that a batch
// costs one store write, not one per entry.
func auditRecords(es []AuditEntry) [][]byte {
	if len(es) == 1 {
		data, _ := json.Marshal(es[0])
		return [][]byte{data}
	}
	var out [][]byte
	var cur []byte
	for _, e := range es {
		data, _ := json.Marshal(e)
		if len(cur) > 0 && len(cur)+1+len(data)+1 > maxAuditRecord {
			out = append(out, append(cur, ']'))
			cur = nil
		}
		if len(cur) == 0 {
			cur = append(cur, '[')
		} else {
			cur = append(cur, ',')
		}
		cur = append(cur, data...)
	}
	if len(cur) > 0 {
		out = append(out, append(cur, ']'))
	}
	return out
}

// Entries returns every entry kept, in log order. It reads the log in
// one list: the store's Limit keeps the newest records of a query, so
// pages of "After id, Limit n" would skip every entry but the newest n.
func (a *Audit) Entries(ctx context.Context) ([]AuditEntry, error) {
	recs, err := a.Store.List(ctx, auditLog, store.ListQuery{})
	if err != nil {
		return nil, err
	}
	out := make([]AuditEntry, 0, len(recs))
	for _, r := range recs {
		if d := bytes.TrimSpace(r.Data); len(d) > 0 && d[0] == '[' {
			var batch []AuditEntry
			if err := json.Unmarshal(d, &batch); err != nil {
				return nil, fmt.Errorf("audit record %d is not a batch of entries: %w", r.ID, err)
			}
			out = append(out, batch...)
			continue
		}
		var e AuditEntry
		if err := json.Unmarshal(r.Data, &e); err != nil {
			return nil, fmt.Errorf("audit record %d is not an entry: %w", r.ID, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// Head returns the chain's head: the newest entry's Seq and Hash (0 and
// "" for an empty log).
func (a *Audit) Head(ctx context.Context) (seq int64, hash string, err error) {
	cur, err := a.Store.Get(ctx, auditHeadKey)
	if errors.Is(err, store.ErrNotFound) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", err
	}
	var h auditHead
	if err := json.Unmarshal(cur.Value, &h); err != nil {
		return 0, "", fmt.Errorf("the audit log's head is corrupt: %w", err)
	}
	return h.Seq, h.Hash, nil
}

// Verify checks the log against its chain and head and returns the
// number of entries checked; an error names the first entry that breaks
// the chain.
func (a *Audit) Verify(ctx context.Context) (int, error) {
	entries, err := a.Entries(ctx)
	if err != nil {
		return 0, err
	}
	seq, hash, err := a.Head(ctx)
	if err != nil {
		return 0, err
	}
	return len(entries), VerifyChain(entries, seq, hash)
}

// missing reports entries from to through missing from the chain: removed,
// or never written by a replica that died after it moved the chain's head
// past them (the head is moved before the entries are written).
func missing(from, through int64) error {
	if from == through {
		return fmt.Errorf("%w: entry %d is missing (removed, or lost with a replica killed before it wrote it)", ErrTampered, from)
	}
	return fmt.Errorf("%w: entries %d to %d are missing (removed, or lost with a replica killed before it wrote them)", ErrTampered, from, through)
}

// ErrTampered is wrapped by the errors of [VerifyChain].
var ErrTampered = errors.New("audit log tampered with")

// VerifyChain checks entries (in any order: replicas may append out of
// order) against the chain and its head (headSeq, headHash): every
// entry's hash must be its own, the numbers consecutive from the oldest
// kept, each entry's Prev the hash of the one before it, and the newest
// the head. So an entry edited, removed (from anywhere but the oldest
// end, which retention trims) or moved is found, and an error wrapping
// [ErrTampered] names it.
func VerifyChain(entries []AuditEntry, headSeq int64, headHash string) error {
	es := slices.Clone(entries)
	slices.SortStableFunc(es, func(a, b AuditEntry) int { return int(a.Seq - b.Seq) })
	for i, e := range es {
		if e.digest() != e.Hash {
			return fmt.Errorf("%w: entry %d does not match its hash (edited)", ErrTampered, e.Seq)
		}
		if i == 0 {
			if e.Seq == 1 && e.Prev != "" {
				return fmt.Errorf("%w: entry 1 names a previous entry", ErrTampered)
			}
			continue
		}
		p := es[i-1]
		switch {
		case e.Seq == p.Seq:
			return fmt.Errorf("%w: entry %d appears twice", ErrTampered, e.Seq)
		case e.Seq != p.Seq+1:
			return missing(p.Seq+1, e.Seq-1)
		case e.Prev != p.Hash:
			return fmt.Errorf("%w: entry %d does not follow entry %d (reordered or replaced)", ErrTampered, e.Seq, p.Seq)
		}
	}
	if len(es) == 0 {
		if headSeq != 0 {
			return fmt.Errorf("%w: the log is empty but the chain has %d entries (removed)", ErrTampered, headSeq)
		}
		return nil
	}
	last := es[len(es)-1]
	switch {
	case last.Seq < headSeq:
		return missing(last.Seq+1, headSeq)
	case last.Seq > headSeq || !bytes.Equal([]byte(last.Hash), []byte(headHash)):
		return fmt.Errorf("%w: entry %d is not the chain's head", ErrTampered, last.Seq)
	}
	return nil
}
