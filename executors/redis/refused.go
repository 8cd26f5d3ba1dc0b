package redis

import (
	"errors"
	"net"

	goredis "github.com/redis/go-redis/v9"
)

// refusedDial reports whether err, the outcome of a call, says that its
// last attempt never had a connection: the dial failed (refused, no route,
// a dial timeout) or the pool had none to give. go-redis reports only the
// last attempt's error, so an earlier attempt may still have been written
// on a connection that died: see [Executor.neverSent].
func refusedDial(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return errors.Is(err, goredis.ErrPoolTimeout) || errors.Is(err, goredis.ErrClosed)
}

// neverSent reports whether a call that failed with err provably sent
// nothing: its attempt could not connect, and the client makes only one
// attempt (MaxRetries -1), so no earlier attempt was written. With
// retries it is unprovable (go-redis reports the last attempt's error
// only), and the attempt is voided, quietly.
func (e *Executor) neverSent(err error) bool {
	return e.oneAttempt && refusedDial(err)
}

// makesOneAttempt reports whether client never retries a command: a
// *redis.Client created with MaxRetries -1 (which go-redis stores as 0).
// Other clients are assumed to retry.
func makesOneAttempt(client goredis.UniversalClient) bool {
	c, ok := client.(*goredis.Client)
	return ok && c.Options().MaxRetries <= 0
}
