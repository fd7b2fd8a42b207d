package main

import (
	"github.com/webgate-dev/webgate/config"
	"github.com/webgate-dev/webgate/memory"
)

// checkSharing checks what a store shared by several machines needs: the
// same fingerprint salt everywhere (store.salt_file), or each machine names
// the same key by another fingerprint and key health is not shared; and
// queries that others who read the store should not see in full.
func (d *doctor) checkSharing(cfg *config.Config) {
	const sec = "Store"
	if locateStore(cfg).Driver != "redis" {
		return
	}
	if cfg.Store.SaltFile == "" {
		d.add(sec, "salt", statusWarn,
			"store.salt_file is not set: each machine names keys by the fingerprint salt of its own state directory, so machines sharing this store do not share key health (a key one machine parked is tried again by the others)",
			"copy one salt file (32 random bytes, mode 0600) to every machine and set store.salt_file (WEBGATE_STORE_SALT_FILE) to it")
	} else {
		d.add(sec, "salt", statusOK, "store.salt_file "+cfg.Store.SaltFile+" ("+cfg.Origin("store.salt_file")+"): machines that use the same file share key health", "")
	}
	if cfg.Log.Queries == memory.KeepFull {
		d.add(sec, "log.queries", statusInfo,
			"full: the decision log in this shared store keeps queries and URLs (after redaction) where everyone who reads the store sees them",
			"set log.queries = \"hashed\" (WEBGATE_LOG_QUERIES) to keep only their hashes")
	}
}
