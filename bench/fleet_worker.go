package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	lredis "github.com/lock4go/lock4go/executors/redis"
)

// fleetWorkerEnv marks a process started by [Fleet] as one of its workers.
const fleetWorkerEnv = "LOCKBENCH_FLEET_WORKER"

// fleetJob is what a worker process is told to do, as JSON on its stdin.
type fleetJob struct {
	RedisAddr, EtcdAddr, ZooKeeperAddr, PostgresAddr, MySQLAddr string

	Subject    string // a subject name of fleetSubject
	Goroutines int    // in this process
	Keys       int    // 1: one key; more: a key per lock call from Keys
	Zipf       bool   // keys drawn zipf(1.1) instead of uniformly
	KeyPrefix  string
	Hold       time.Duration
	Duration   time.Duration
	Timeout    time.Duration // per Lock call
	Seed       uint64
}

// fleetReport is what a worker measured, as JSON on its stdout.
type fleetReport struct {
	PerG     []int
	Waits    []int64    // ns from Lock call to acquired
	Spans    [][2]int64 // one key only: acquired and release begun, Unix ns
	Errors   int
	Timeouts int
	FirstErr string
	Sent     int64 // commands or requests the process's clients sent
}

// FleetWorkerMain runs the process as a worker of [Fleet] and exits when
// the process was started as one; it returns at once otherwise. Call it
// first in main (and TestMain) of any binary that runs Fleet.
func FleetWorkerMain() {
	if os.Getenv(fleetWorkerEnv) == "" {
		return
	}
	if err := fleetWork(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fleet worker:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// fleetWork reads a job from in, builds its subject, says "ready", waits
// for a line ("go"), runs the job and writes the report to out.
func fleetWork(in io.Reader, out io.Writer) error {
	rd := bufio.NewReader(in)
	line, err := rd.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("read job: %w", err)
	}
	var job fleetJob
	if err := json.Unmarshal(line, &job); err != nil {
		return fmt.Errorf("job: %w", err)
	}
	ctx := context.Background()
	env := &Env{RedisAddr: job.RedisAddr, EtcdAddr: job.EtcdAddr, ZooKeeperAddr: job.ZooKeeperAddr, PostgresAddr: job.PostgresAddr, MySQLAddr: job.MySQLAddr,
		EtcdRequests: &GRPCCounter{}, RedisSent: &PipelineCounter{}}
	defer env.Close()
	s, err := fleetSubject(ctx, env, job.Subject)
	if err != nil {
		return err
	}
	defer s.Close()
	lockers := make([]Locker, job.Goroutines)
	for g := range lockers {
		if lockers[g], err = s.Contender(g); err != nil {
			return err
		}
		if err := pair(ctx, lockers[g], fmt.Sprintf("%swarm:%d:%d", job.KeyPrefix, os.Getpid(), g)); err != nil {
			return fmt.Errorf("%s: warm-up: %w", s.Name, err)
		}
	}
	sent0 := sentBy(env)
	if _, err := io.WriteString(out, "ready\n"); err != nil {
		return err
	}
	if _, err := rd.ReadBytes('\n'); err != nil {
		return fmt.Errorf("wait for go: %w", err)
	}
	rep := runFleetJob(ctx, job, lockers)
	rep.Sent = sentBy(env) - sent0
	return json.NewEncoder(out).Encode(rep)
}

// sentBy returns what env's clients have sent: Redis commands and etcd
// requests (a worker uses one backend).
func sentBy(env *Env) int64 {
	cmds, _, piped := env.RedisSent.Counts()
	s, _ := env.EtcdRequests.Snapshot(context.Background())
	return cmds + piped + s.Sent
}

// runFleetJob runs the job's goroutines: lock, hold, release, repeat, until
// the job's duration has passed.
func runFleetJob(ctx context.Context, job fleetJob, lockers []Locker) fleetReport {
	runCtx, stop := context.WithTimeout(ctx, job.Duration)
	defer stop()
	rep := fleetReport{PerG: make([]int, len(lockers))}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g, l := range lockers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(job.Seed, uint64(g)))
			var zipf *rand.Zipf
			if job.Zipf && job.Keys > 1 {
				zipf = rand.NewZipf(rng, 1.1, 1, uint64(job.Keys-1))
			}
			for runCtx.Err() == nil {
				key := job.KeyPrefix + "k"
				switch {
				case zipf != nil:
					key = fmt.Sprintf("%sk%d", job.KeyPrefix, zipf.Uint64())
				case job.Keys > 1:
					key = fmt.Sprintf("%sk%d", job.KeyPrefix, rng.IntN(job.Keys))
				}
				lctx, cancel := context.WithTimeout(runCtx, job.Timeout)
				t0 := time.Now()
				u, err := l.Lock(lctx, key)
				acquired := time.Now()
				cancel()
				if err != nil {
					if runCtx.Err() != nil {
						return
					}
					mu.Lock()
					if errors.Is(err, context.DeadlineExceeded) || acquired.Sub(t0) >= job.Timeout {
						rep.Timeouts++
					} else {
						rep.Errors++
						if rep.FirstErr == "" {
							rep.FirstErr = err.Error()
						}
					}
					mu.Unlock()
					time.Sleep(time.Millisecond)
					continue
				}
				time.Sleep(job.Hold)
				released := time.Now()
				_ = u(context.WithoutCancel(ctx))
				mu.Lock()
				rep.PerG[g]++
				rep.Waits = append(rep.Waits, acquired.Sub(t0).Nanoseconds())
				if job.Keys <= 1 {
					rep.Spans = append(rep.Spans, [2]int64{acquired.UnixNano(), released.UnixNano()})
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return rep
}

// Fleet subjects by backend, in report order.
var fleetSubjects = map[Backend][]string{
	Redis:     {"lock4go/redis", "lock4go/redis strict FIFO", fairFloorName, "Lock4j-style poll", "bsm/redislock", "redsync"},
	Etcd:      {"lock4go/etcd", "etcd concurrency.Mutex"},
	ZooKeeper: {"lock4go/zookeeper", "go-zookeeper zk.Lock"},
	Postgres:  {"lock4go/postgres", "pg_advisory_lock"},
	MySQL:     {"lock4go/mysql", "GET_LOCK"},
}

// fleetSubject builds the named subject on env's servers: one client (and
// executor and Template) for the whole process, as a service has.
func fleetSubject(ctx context.Context, env *Env, name string) (*Subject, error) {
	switch name {
	case "lock4go/redis":
		return Lock4go(ctx, Redis, 1, redisExecutor(env, lredis.Options{}))
	case "lock4go/redis strict FIFO":
		s, err := Lock4go(ctx, Redis, 1, redisExecutor(env, lredis.Options{StrictFIFO: true}))
		if s != nil {
			s.Name = name
		}
		return s, err
	case fairFloorName:
		return FairFloor(ctx, env.RedisClient())
	case "Lock4j-style poll":
		return Lock4jPoll(env.RedisClient(), 100*time.Millisecond), nil
	case "bsm/redislock":
		return BSMRedislock(env.RedisClient(), 10*time.Millisecond), nil
	case "redsync":
		return Redsync(env.RedisClient()), nil
	case "lock4go/etcd":
		return Lock4go(ctx, Etcd, 1, etcdExecutor(env))
	case "etcd concurrency.Mutex":
		c, err := env.EtcdClient()
		if err != nil {
			return nil, err
		}
		return EtcdMutex(c), nil
	case "lock4go/zookeeper":
		return Lock4go(ctx, ZooKeeper, 1, zkExecutor(env))
	case "go-zookeeper zk.Lock":
		c, err := env.ZooKeeperConn(ctx)
		if err != nil {
			return nil, err
		}
		return ZKLock(c)
	case "lock4go/postgres", "pg_advisory_lock":
		return postgresFleetSubject(ctx, env, name)
	case "lock4go/mysql", "GET_LOCK":
		return mysqlFleetSubject(ctx, env, name)
	}
	return nil, fmt.Errorf("fleet: unknown subject %q", name)
}
