package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	redsyncgoredis "github.com/go-redsync/redsync/v4/redis/goredis/v9"
	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	lredis "github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/executors/redlock"
	"github.com/lock4go/lock4go/internal/testserver"
)

// RedlockBackend names the subjects over several independent masters.
const RedlockBackend Backend = "redlock"

// RedlockEnv is N independent redis-server masters and the clients made on
// them, for the Redlock comparison. It is safe for concurrent use.
type RedlockEnv struct {
	Addrs []string
	// Sent counts the requests of every client made by [RedlockEnv.Client].
	Sent *PipelineCounter

	servers []*testserver.Server
	stats   []*goredis.Client
	closers []func() error
}

// StartRedlock starts n redis-server masters on loopback.
func StartRedlock(n int) (*RedlockEnv, error) {
	e := &RedlockEnv{Sent: &PipelineCounter{}}
	for range n {
		s, err := testserver.StartRedis()
		if err != nil {
			return nil, errors.Join(err, e.Close())
		}
		e.servers = append(e.servers, s)
		e.Addrs = append(e.Addrs, s.Addr())
		st := goredis.NewClient(&goredis.Options{Addr: s.Addr()})
		e.stats = append(e.stats, st)
		e.closers = append(e.closers, st.Close)
	}
	return e, nil
}

// Client returns a new client of master i whose requests Sent counts.
func (e *RedlockEnv) Client(i int) *goredis.Client {
	c := goredis.NewClient(&goredis.Options{Addr: e.Addrs[i], PoolSize: 128, ContextTimeoutEnabled: true})
	c.AddHook(e.Sent)
	e.closers = append(e.closers, c.Close)
	return c
}

// Clients returns a new client of every master.
func (e *RedlockEnv) Clients() []goredis.UniversalClient {
	out := make([]goredis.UniversalClient, len(e.Addrs))
	for i := range e.Addrs {
		out[i] = e.Client(i)
	}
	return out
}

// Counter counts the commands of every master (INFO commandstats) and the
// requests of every client.
func (e *RedlockEnv) Counter() Counter { return redlockCounter{e} }

// Close closes the clients and stops the masters.
func (e *RedlockEnv) Close() error {
	var errs []error
	for i := len(e.closers) - 1; i >= 0; i-- {
		errs = append(errs, e.closers[i]())
	}
	for _, s := range e.servers {
		errs = append(errs, s.Stop())
	}
	return errors.Join(errs...)
}

// redlockCounter sums the masters' commands.
type redlockCounter struct{ e *RedlockEnv }

func (c redlockCounter) Snapshot(ctx context.Context) (Sample, error) {
	out := Sample{Server: map[string]int64{}}
	for _, st := range c.e.stats {
		s, err := RedisStats{Client: st, Sent: &PipelineCounter{}}.Snapshot(ctx)
		if err != nil {
			return Sample{}, err
		}
		for k, v := range s.Server {
			out.Server[k] += v
		}
		out.Sent += s.Sent // subscriptions
	}
	cmds, _, piped := c.e.Sent.Counts()
	out.Sent += cmds + piped
	return out, nil
}

// RedlockExecutor makes lock4go Redlock executors over every master of e,
// each over clients of its own.
func RedlockExecutor(e *RedlockEnv) ExecutorFactory {
	return func(context.Context) (executor.Executor, func() error, error) {
		x, err := redlock.New(e.Clients(), redlock.Options{})
		if err != nil {
			return nil, nil, err
		}
		return x, x.Close, nil
	}
}

// singleExecutor makes lock4go Redis executors on master 0 of e.
func singleExecutor(e *RedlockEnv) ExecutorFactory {
	return func(context.Context) (executor.Executor, func() error, error) {
		x, err := lredis.New(e.Client(0), lredis.Options{})
		if err != nil {
			return nil, nil, err
		}
		return x, x.Close, nil
	}
}

// RedsyncQuorum is go-redsync/redsync over every master of e (its Redlock),
// with its default retry (32 tries, 50–250ms random delay).
func RedsyncQuorum(e *RedlockEnv) *Subject {
	pools := make([]redsyncredis.Pool, len(e.Addrs))
	for i := range e.Addrs {
		pools[i] = redsyncgoredis.NewPool(e.Client(i))
	}
	return &Subject{
		Name: fmt.Sprintf("redsync (%d nodes)", len(e.Addrs)), Backend: RedlockBackend, Kind: KindPeer, Waits: true,
		Note:      "SET NX PX on every node, waits for all replies, retry 50–250ms random",
		newLocker: shared(redsyncLocker(redsync.New(pools...))),
	}
}

// RedlockSubjects returns lock4go's Redis executor on master 0 alone (the
// single-node reference), lock4go's Redlock over every master and redsync
// over every master.
func RedlockSubjects(ctx context.Context, e *RedlockEnv) ([]*Subject, error) {
	single, err := Lock4go(ctx, Redis, 1, singleExecutor(e))
	if err != nil {
		return nil, err
	}
	single.Name = "lock4go/redis (1 master)"
	quorum, err := Lock4go(ctx, RedlockBackend, 1, RedlockExecutor(e))
	if err != nil {
		return nil, errors.Join(err, single.Close())
	}
	quorum.Name = fmt.Sprintf("lock4go/redlock (%d masters)", len(e.Addrs))
	return []*Subject{single, quorum, RedsyncQuorum(e)}, nil
}

// RedlockRow is one subject of the Redlock comparison.
type RedlockRow struct {
	Name        string
	Uncontended UncontendedResult
	Handoff     HandoffResult
	// HandoffCmds are the masters' commands per acquisition during the
	// hand-off run (every master's, scripts' inner calls included).
	HandoffCmds float64
	Err         error
}

// Redlock measures the subjects of [RedlockSubjects] over e: uncontended
// pairs interleaved, then hand-off with waiters goroutines and the commands
// per acquisition it took.
func Redlock(ctx context.Context, e *RedlockEnv, p Plan, waiters int, log io.Writer) ([]RedlockRow, error) {
	subjects, err := RedlockSubjects(ctx, e)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, s := range subjects {
			_ = s.Close()
		}
	}()
	key := func(s *Subject, what string) string { return "lockbench-redlock:" + s.Name + ":" + what }
	solo, err := UncontendedAll(ctx, subjects, func(s *Subject) string { return key(s, "solo") },
		func(*Subject) Counter { return e.Counter() }, p.Uncontended)
	if err != nil {
		fmt.Fprintf(log, "redlock uncontended: ERROR %v\n", err)
	}
	rows := make([]RedlockRow, len(subjects))
	for i, s := range subjects {
		r := &rows[i]
		r.Name, r.Uncontended = s.Name, solo[i]
		srv, _, _ := r.Uncontended.CommandsPerPair()
		fmt.Fprintf(log, "%-30s uncontended p50 %-9v p99 %-9v cmds/pair %.1f\n", s.Name, r.Uncontended.Pair.P50, r.Uncontended.Pair.P99, srv)
		d, err := Count(ctx, e.Counter(), func() error {
			h, err := Handoff(ctx, s, key(s, "handoff"), HandoffOptions{Waiters: waiters, Hold: p.Hold, AcquireTimeout: p.AcquireTimeout, Budget: p.Handoff})
			r.Handoff = h
			return err
		})
		if err != nil {
			r.Err = err
			fmt.Fprintf(log, "%-30s hand-off: ERROR %v\n", s.Name, err)
			continue
		}
		if n := r.Handoff.Handoff.N; n > 0 {
			r.HandoffCmds = float64(d.Total()) / float64(n)
		}
		fmt.Fprintf(log, "%-30s hand-off ×%d p50 %-9v p99 %-9v timeouts %d cmds/acq %.1f\n", s.Name, waiters, r.Handoff.Handoff.P50, r.Handoff.Handoff.P99, r.Handoff.Timeouts, r.HandoffCmds)
	}
	return rows, nil
}

// RedlockMarkdown renders rows as the Redlock section of bench.md.
func RedlockMarkdown(rows []RedlockRow, masters, waiters int, command string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Redlock: %d independent masters\n\n", masters)
	fmt.Fprintf(&b, "Uncontended Lock+Unlock pairs (interleaved), and hand-off with %d waiters: release to the next holder's Lock returning, and every master's commands per acquisition (script calls counted inside). Command: `%s`.\n\n", waiters, command)
	b.WriteString("| subject | uncontended p50 | uncontended p99 | × single master | hand-off p50 | hand-off p99 | timeouts | commands / acquisition |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
	base := rows[0].Uncontended.Pair.P50
	for _, r := range rows {
		ratio := "–"
		if base > 0 && r.Uncontended.Pair.P50 > 0 {
			ratio = fmt.Sprintf("%.2f", float64(r.Uncontended.Pair.P50)/float64(base))
		}
		if r.Err != nil {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | error: %v | | | |\n", r.Name, dur(r.Uncontended.Pair.P50), dur(r.Uncontended.Pair.P99), ratio, r.Err)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %d | %.1f |\n", r.Name, dur(r.Uncontended.Pair.P50), dur(r.Uncontended.Pair.P99), ratio,
			dur(r.Handoff.Handoff.P50), dur(r.Handoff.Handoff.P99), r.Handoff.Timeouts, r.HandoffCmds)
	}
	b.WriteString("\n")
	return b.String()
}
