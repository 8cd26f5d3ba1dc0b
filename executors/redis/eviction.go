package redis

import (
	"context"
	"strings"
	"time"
)

// evictionCheckTimeout bounds the start-up check of maxmemory-policy.
const evictionCheckTimeout = 2 * time.Second

// checkEviction warns when the server's maxmemory-policy may evict keys,
// which would silently drop held locks. Servers that refuse CONFIG (managed
// services, ACLs) are skipped with a debug message.
func (e *Executor) checkEviction() {
	ctx, cancel := context.WithTimeout(context.Background(), evictionCheckTimeout)
	defer cancel()
	policy, err := e.client.ConfigGet(ctx, "maxmemory-policy").Result()
	if err != nil {
		e.log.Debug("redis: cannot read maxmemory-policy; eviction check skipped", "err", err)
		return
	}
	e.warnIfEvicting(policy["maxmemory-policy"])
}

// warnIfEvicting logs a warning when policy lets Redis evict lock keys.
func (e *Executor) warnIfEvicting(policy string) {
	if evicting(policy) {
		e.log.Warn("redis: maxmemory-policy evicts keys; under memory pressure held locks can be dropped and taken by another owner; use noeviction on lock servers",
			"maxmemory-policy", policy)
	}
}

// evicting reports whether a maxmemory-policy may evict lock keys: every
// allkeys-* policy, and volatile-* ones since lock keys carry a TTL.
func evicting(policy string) bool {
	return strings.HasPrefix(policy, "allkeys-") || strings.HasPrefix(policy, "volatile-")
}
