package redis

import (
	"context"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// The calls of an acquisition and its release are built in place rather
// than through go-redis's EvalSha, which boxes every key and argument anew
// and copies them into a slice of its own: 13 of the 46 allocations of an
// uncontended Template Lock+Release on Redis were there. A call's
// arguments go into a pooled buffer, the per-lease strings as pointers to
// the lease's fields (a pointer fits in an interface without an
// allocation, and go-redis writes a *string as the string), and the buffer
// goes back to the pool once the reply is read. go-redis is done with a
// command's arguments when Process returns. The names derived from the
// lock key and a lock's value are written into the call's own buffers
// (bytesArg), so a lease keeps neither.

// maxCallArgs is the most arguments a call built in place has: EVALSHA, the
// digest, the number of keys, 4 keys and 9 arguments (a waiting
// acquisition that confirms a direct grant).
const maxCallArgs = 16

// call is the arguments of one script call under construction.
type call struct {
	s     *luaScript
	nkeys int
	args  []any
	names [lockNameCount - 1]bytesArg // the derived names among the keys
	value bytesArg                    // a lock's value, see addValue
}

// bytesArg is a script argument written into a pooled call's own buffer.
// go-redis writes an [encoding.BinaryMarshaler] as its bytes, and a
// pointer to one fits in an interface without an allocation.
type bytesArg []byte

// MarshalBinary returns the argument's bytes, for go-redis to write.
func (b *bytesArg) MarshalBinary() ([]byte, error) { return *b, nil }

// String returns the argument as a string, for a printed command.
func (b *bytesArg) String() string { return string(*b) }

var callPool = sync.Pool{New: func() any { return &call{args: make([]any, 0, maxCallArgs)} }}

// newCall returns a pooled call of s over the first n of the names of
// *key, which must outlive the call (a lease's key): EVALSHA, the digest,
// the number of keys, the key and n-1 names derived from it (see
// appendLockName). Add its arguments, run it, and free it once its reply
// is read.
func newCall(s *luaScript, key *string, n int) *call {
	c, _ := callPool.Get().(*call)
	c.s, c.nkeys = s, n
	c.args = append(c.args[:0], "evalsha", &s.sha, n, key)
	for i := nameShares; i < n; i++ {
		b := &c.names[i-1]
		*b = appendLockName((*b)[:0], *key, i)
		c.args = append(c.args, b)
	}
	return c
}

// addValue appends l's value, the one its acquisition wrote, which the
// release and renew scripts compare first.
func (c *call) addValue(l *lease) {
	c.value = l.appendValue(c.value[:0])
	c.args = append(c.args, &c.value)
}

// add appends script arguments.
func (c *call) add(args ...any) { c.args = append(c.args, args...) }

// processor sends a command: a client, or a pipeline.
type processor interface {
	Process(ctx context.Context, cmd goredis.Cmder) error
}

// run sends the call by digest and, when the server does not know the
// script, in full (EVAL), as runScript does.
func (c *call) run(ctx context.Context, p processor) *goredis.Cmd {
	cmd := c.send(ctx, p)
	if isNoScript(cmd.Err()) {
		c.args[0], c.args[1] = "eval", &c.s.src
		cmd = c.send(ctx, p)
	}
	return cmd
}

// send sends the call as its arguments stand.
func (c *call) send(ctx context.Context, p processor) *goredis.Cmd {
	cmd := goredis.NewCmd(ctx, c.args...)
	if c.nkeys > 0 {
		cmd.SetFirstKeyPos(3) // for a Cluster client's routing
	}
	_ = p.Process(ctx, cmd)
	return cmd
}

// free returns c to the pool; its command must not be used for anything
// but its reply any more.
func (c *call) free() {
	clear(c.args)
	c.args, c.s = c.args[:0], nil
	callPool.Put(c)
}
