package redis

import "strings"

// aclCommands are the commands an [Executor] needs: its scripts (EVALSHA,
// with EVAL when the server does not know a script yet), the commands the
// scripts call (Redis checks them against the caller's ACL too), pub/sub
// for waking waiters (go-redis pings an idle pub/sub connection), and
// [Executor.Inspect]; PUBSUB NUMSUB is how the executor of a Sentinel
// failover client checks that its subscription is on the current master.
// On a Cluster client the wakes are sharded (SPUBLISH, SSUBSCRIBE; PUBSUB
// SHARDNUMSUB checks the subscription of a slot), and the scripts fall back
// to PUBLISH on servers without SPUBLISH. WAIT is sent with
// [Options.Replicas]. HELLO and AUTH need no permission.
var aclCommands = []string{
	"evalsha", "eval",
	"exists", "set", "time", "pexpire", "get", "del", "publish", "spublish",
	"zadd", "zrem", "zpopmin", "pttl", "zrangebyscore",
	"subscribe", "unsubscribe", "ssubscribe", "sunsubscribe", "ping", "pubsub|numsub", "pubsub|shardnumsub", "wait",
	"zcard", "zrange", "zscore", "zremrangebyscore",
}

// ACLRules returns the Redis ACL rules of a user that may lock, through an
// [Executor], the keys that start with keyPrefix and ":" and nothing else:
// those keys, the names derived from them (see docs/keys.md), the
// executors' wake channels ("lock4go:wake:*", and on Redis Cluster
// "{<slot tag>}lock4go:wake:*", whatever keyPrefix is) and
// the commands the executor sends. For the keys that lock4go's key builders make with the default
// KeyPrefix "lock4go":
//
//	ACL SETUSER lock4go reset on >PASSWORD <ACLRules("lock4go")>
//
// Glob characters in keyPrefix are escaped. The rules deny CONFIG, so the
// executor's start-up check of maxmemory-policy is skipped (logged at debug
// level; check the policy yourself). They do not grant CLIENT SETINFO,
// which go-redis sends on connect to Redis 7.2 and later and whose refusal
// it ignores (Redis 7.0 does not know the command, so the rules cannot name
// it); add +client|setinfo there to keep the refusals out of ACL LOG. A
// Cluster client also needs +cluster|slots and +command (go-redis reads the
// slot map and the command table; refused the latter, it asks again before
// every command).
func ACLRules(keyPrefix string) string {
	p := globEscape(keyPrefix) + ":"
	// Derived names: "<key>##queue", "<key>##shares" and
	// "<key>##void:<owner>" for a key with a hash tag, under keyPrefix;
	// "{<key>}:queue", "{<key>}:shares" and "{<key>}:void:<owner>" for a key
	// without one; "{<3-char slot tag>}:queue:<key>" (and so on) for a key
	// with a "}" but no tag. The only channels are the executors' wake
	// channels, classic and sharded (in a slot's three-character tag).
	rules := []string{
		"resetkeys",
		"~" + p + "*",
		"~{" + p + "*",
		"~{???}" + voidSuffix + ":" + p + "*",
		"~{???}" + queueSuffix + ":" + p + "*",
		"~{???}" + sharesSuffix + ":" + p + "*",
		"resetchannels",
		"&" + wakeChannelPrefix + "*",
		"&{???}" + wakeChannelPrefix + "*",
		"-@all",
	}
	for _, c := range aclCommands {
		rules = append(rules, "+"+c)
	}
	return strings.Join(rules, " ")
}

// globEscape escapes the characters that Redis glob patterns treat
// specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
