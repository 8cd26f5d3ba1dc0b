package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
)

// Sample is a reading of a [Counter].
type Sample struct {
	// Server counts commands by name as the server saw them (for Redis,
	// INFO commandstats, where every redis.call inside a Lua script counts).
	Server map[string]int64
	// Sent counts requests the clients sent (round trips; a pipeline's
	// commands count one each).
	Sent int64
}

// Counter counts backend commands.
type Counter interface {
	Snapshot(ctx context.Context) (Sample, error)
}

// Delta is the difference of two samples.
type Delta struct {
	Server map[string]int64
	Sent   int64
}

// add returns d + e.
func (d Delta) add(e Delta) Delta {
	out := Delta{Server: map[string]int64{}, Sent: d.Sent + e.Sent}
	for k, v := range d.Server {
		out.Server[k] += v
	}
	for k, v := range e.Server {
		out.Server[k] += v
	}
	return out
}

// Total returns the sum of Server over all commands.
func (d Delta) Total() int64 {
	var n int64
	for _, v := range d.Server {
		n += v
	}
	return n
}

// String lists the server's commands, most frequent first.
func (d Delta) String() string {
	names := make([]string, 0, len(d.Server))
	for k, v := range d.Server {
		if v != 0 {
			names = append(names, k)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		if d.Server[names[i]] != d.Server[names[j]] {
			return d.Server[names[i]] > d.Server[names[j]]
		}
		return names[i] < names[j]
	})
	var b strings.Builder
	for i, k := range names {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s=%d", k, d.Server[k])
	}
	return b.String()
}

func diff(before, after Sample, ignore ...string) Delta {
	d := Delta{Server: map[string]int64{}, Sent: after.Sent - before.Sent}
	for k, v := range after.Server {
		d.Server[k] = v - before.Server[k]
	}
	for _, k := range ignore {
		delete(d.Server, k)
	}
	return d
}

// Count runs f between two samples of c and returns the delta, leaving out
// the server commands named in ignore.
func Count(ctx context.Context, c Counter, f func() error, ignore ...string) (Delta, error) {
	before, err := c.Snapshot(ctx)
	if err != nil {
		return Delta{}, err
	}
	if err := f(); err != nil {
		return Delta{}, err
	}
	after, err := c.Snapshot(ctx)
	if err != nil {
		return Delta{}, err
	}
	return diff(before, after, ignore...), nil
}

// RedisStats reads INFO commandstats (calls per command on the server,
// including commands that Lua scripts call: each redis.call counts) and the
// commands the hooked clients sent. Pub/sub subscriptions bypass go-redis
// hooks, so Sent adds the server's (un)subscribe calls. Client must not
// carry the Sent hook.
type RedisStats struct {
	Client *goredis.Client
	Sent   *PipelineCounter
}

// Snapshot reads both counts.
func (r RedisStats) Snapshot(ctx context.Context) (Sample, error) {
	m, err := r.commandstats(ctx)
	if err != nil {
		return Sample{}, err
	}
	cmds, _, piped := r.Sent.Counts()
	sent := cmds + piped
	for _, k := range []string{"subscribe", "unsubscribe", "psubscribe", "punsubscribe", "ssubscribe", "sunsubscribe"} {
		sent += m[k]
	}
	return Sample{Server: m, Sent: sent}, nil
}

func (r RedisStats) commandstats(ctx context.Context) (map[string]int64, error) {
	calls, _, err := r.commandstatsUsec(ctx)
	return calls, err
}

// commandstatsUsec returns INFO commandstats: the calls of each command,
// and the µs the server spent inside them (a script's include its
// commands').
func (r RedisStats) commandstatsUsec(ctx context.Context) (calls, usec map[string]int64, err error) {
	s, err := r.Client.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil, nil, err
	}
	calls, usec = map[string]int64{}, map[string]int64{}
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(line)
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":calls=")
		if !ok || !strings.HasPrefix(line, "cmdstat_") {
			continue
		}
		n, rest, _ := strings.Cut(rest, ",")
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("commandstats %q: %w", line, err)
		}
		calls[name] = v
		if _, u, ok := strings.Cut(rest, "usec="); ok {
			u, _, _ = strings.Cut(u, ",")
			if v, err := strconv.ParseInt(u, 10, 64); err == nil {
				usec[name] = v
			}
		}
	}
	return calls, usec, nil
}

// ZooKeeperStats reads the packets the server received (mntr), which counts
// requests and session pings.
type ZooKeeperStats struct{ Addr string }

// Snapshot returns {"packets": zk_packets_received} as both counts.
func (z ZooKeeperStats) Snapshot(ctx context.Context) (Sample, error) {
	n, err := z.packets(ctx)
	if err != nil {
		return Sample{}, err
	}
	return Sample{Server: map[string]int64{"packets": n}, Sent: n}, nil
}

func (z ZooKeeperStats) packets(ctx context.Context) (int64, error) {
	d := net.Dialer{Timeout: 2 * time.Second}
	c, err := d.DialContext(ctx, "tcp", z.Addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.WriteString(c, "mntr"); err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "\t")
		if ok && k == "zk_packets_received" {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("zookeeper %s: mntr has no zk_packets_received", z.Addr)
}

// GRPCCounter counts the requests etcd clients send: unary calls, and
// messages sent on streams (watch creations and cancellations, lease
// keep-alives). Install it with [GRPCCounter.DialOptions]. It is safe for
// concurrent use.
type GRPCCounter struct {
	mu sync.Mutex
	m  map[string]int64
}

func (c *GRPCCounter) add(method string) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]int64{}
	}
	c.m[method[strings.LastIndexByte(method, '/')+1:]]++
	c.mu.Unlock()
}

// Snapshot returns requests by method name, and their sum as Sent.
func (c *GRPCCounter) Snapshot(context.Context) (Sample, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Sample{Server: make(map[string]int64, len(c.m))}
	for k, v := range c.m {
		s.Server[k] = v
		s.Sent += v
	}
	return s, nil
}

// DialOptions returns the interceptors that count.
func (c *GRPCCounter) DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			c.add(method)
			return invoker(ctx, method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			s, err := streamer(ctx, desc, cc, method, opts...)
			if err != nil {
				return nil, err
			}
			return countingStream{ClientStream: s, c: c, method: method}, nil
		}),
	}
}

type countingStream struct {
	grpc.ClientStream
	c      *GRPCCounter
	method string
}

func (s countingStream) SendMsg(m any) error {
	s.c.add(s.method)
	return s.ClientStream.SendMsg(m)
}

// PipelineCounter is a go-redis hook that counts what one client sends:
// commands, pipelines and the commands inside them. It is safe for
// concurrent use.
type PipelineCounter struct {
	mu        sync.Mutex
	commands  int64
	pipelines int64
	piped     int64
	names     map[string]int64 // commands sent alone, by name
	slowest   time.Duration    // longest pipeline
	largest   int              // most commands in one pipeline
}

// Pipelines returns the longest time one pipeline took and the most
// commands one carried.
func (p *PipelineCounter) Pipelines() (slowest time.Duration, largest int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.slowest, p.largest
}

// Alone returns the commands sent outside pipelines, by name.
func (p *PipelineCounter) Alone() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := make(map[string]int64, len(p.names))
	for k, v := range p.names {
		m[k] = v
	}
	return m
}

// Counts returns commands sent alone, pipelines, and commands in pipelines.
func (p *PipelineCounter) Counts() (commands, pipelines, piped int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.commands, p.pipelines, p.piped
}

// DialHook passes dials through.
func (p *PipelineCounter) DialHook(next goredis.DialHook) goredis.DialHook { return next }

// ProcessHook counts a command.
func (p *PipelineCounter) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		p.mu.Lock()
		p.commands++
		if p.names == nil {
			p.names = map[string]int64{}
		}
		p.names[cmd.Name()]++
		p.mu.Unlock()
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook counts a pipeline and its commands.
func (p *PipelineCounter) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		took := time.Since(start)
		p.mu.Lock()
		p.pipelines++
		p.piped += int64(len(cmds))
		p.slowest = max(p.slowest, took)
		p.largest = max(p.largest, len(cmds))
		p.mu.Unlock()
		return err
	}
}
