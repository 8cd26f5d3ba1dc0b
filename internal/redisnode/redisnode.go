// Package redisnode holds what the Redlock executor sets on the Redis
// executors of its masters and no other user should: it is not part of
// redis.Options. Package redis fills in the functions when it is
// initialised; they are never changed after that.
package redisnode

// PollEveryRetry makes every retry of a waiter of e, a *redis.Executor
// just made by redis.New and not yet used, ask the server, instead of
// being answered "busy" without a round trip while no wake came: a wake
// from one Redlock master must make the retries on every master ask.
var PollEveryRetry func(e any)
