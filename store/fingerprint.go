package store

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// FingerprintBytes is how many bytes of the HMAC a [Fingerprint] keeps
// (96 bits, printed as 24 hex digits): enough that two keys never share
// one, too few to be mistaken for a secret.
const FingerprintBytes = 12

// Fingerprint returns a stable, non-reversible name for secret, for use
// in store keys and records in place of the secret: HMAC-SHA256 keyed
// with salt, truncated to [FingerprintBytes] and hex-encoded. A store
// never holds an API key; health records and counters are keyed by the
// key's fingerprint.
//
// The salt keeps fingerprints from being compared across installations
// and from being checked against a list of guessed keys by whoever can
// read the store: use a random per-installation value kept outside the
// store (with a Redis store shared by several machines, the same salt on
// each). An empty salt still hides the secret but not its identity.
func Fingerprint(secret, salt []byte) string {
	m := hmac.New(sha256.New, salt)
	m.Write(secret)
	return hex.EncodeToString(m.Sum(nil)[:FingerprintBytes])
}
