package shedlock_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
	"github.com/lock4go/lock4go/jobs"
	"github.com/lock4go/lock4go/jobs/shedlock"
)

// interop is one layout under test: its executor, and how javaside
// reaches the same server.
type interop struct {
	backend, addr string
	ex            executor.Executor
}

func layouts(t *testing.T) []interop {
	testserver.Check(t, redisErr)
	testserver.Check(t, pgErr)
	client := goredis.NewClient(&goredis.Options{Addr: redisSrv.Addr()})
	t.Cleanup(func() { _ = client.Close() })
	pool, err := pgxpool.New(t.Context(), "postgres://postgres@"+pgSrv.Addr()+"/postgres?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), shedlock.PostgresSchema("shedlock")); err != nil {
		t.Fatal(err)
	}
	return []interop{
		{"postgres", pgSrv.Addr(), shedlock.NewJDBC(shedlock.Pgx(pool), shedlock.Postgres("shedlock"), shedlock.JDBCOptions{})},
		{"redis", redisSrv.Addr(), shedlock.NewRedis(client, shedlock.RedisOptions{})},
	}
}

func runner(t *testing.T, ex executor.Executor) *jobs.Runner {
	tpl, err := lock4go.New(lock4go.Config{}, ex)
	if err != nil {
		t.Fatal(err)
	}
	r, err := jobs.New(tpl, jobs.Config{AtMostFor: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func jobName() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "interop-" + hex.EncodeToString(b[:])
}

func nop(context.Context) error { return nil }

// TestInterop_javaHolds: a job ShedLock holds is skipped by lock4go, and
// stays skipped until ShedLock's lockAtLeastFor end after its unlock.
func TestInterop_javaHolds(t *testing.T) {
	for _, in := range layouts(t) {
		t.Run(in.backend, func(t *testing.T) {
			ctx, r, name := deadline(t), runner(t, in.ex), jobName()
			const alf = 1500 * time.Millisecond
			begin := time.Now()
			s, got := startSide(t, in.backend, in.addr, name, 30*time.Second, alf)
			if got != "locked" {
				t.Fatalf("javaside said %q, want locked", got)
			}
			if res := r.Run(ctx, name, nop); res.Outcome != jobs.Skipped {
				t.Fatalf("lock4go while ShedLock holds: %v (%v), want skipped", res.Outcome, res.Err)
			}
			s.unlock(t)
			testwait.For(t, alf+5*time.Second, "lock4go running the job after ShedLock's at-least-for end", func() bool {
				res := r.Run(ctx, name, nop)
				if res.Outcome == jobs.Ran && time.Since(begin) < alf {
					t.Fatalf("lock4go ran the job %v after ShedLock took it with lockAtLeastFor %v", time.Since(begin), alf)
				}
				return res.Outcome == jobs.Ran
			})
		})
	}
}

// TestInterop_goHolds: a job lock4go holds is skipped by ShedLock, also
// after the job returned, until its at-least-for end.
func TestInterop_goHolds(t *testing.T) {
	for _, in := range layouts(t) {
		t.Run(in.backend, func(t *testing.T) {
			ctx, r, name := deadline(t), runner(t, in.ex), jobName()
			const alf = 1500 * time.Millisecond
			res := r.Run(ctx, name, func(context.Context) error {
				if _, got := startSide(t, in.backend, in.addr, name, 30*time.Second, 0); got != "skipped" {
					t.Errorf("ShedLock while lock4go runs the job: %q, want skipped", got)
				}
				return nil
			}, jobs.AtLeastFor(alf))
			if res.Outcome != jobs.Ran {
				t.Fatalf("lock4go: %v (%v)", res.Outcome, res.Err)
			}
			testwait.For(t, alf+5*time.Second, "ShedLock taking the job after lock4go's at-least-for end", func() bool {
				s, got := startSide(t, in.backend, in.addr, name, 30*time.Second, 0)
				if got == "locked" {
					if time.Now().Before(res.HeldUntil) {
						t.Fatalf("ShedLock took the job %v before lock4go's at-least-for end", time.Until(res.HeldUntil))
					}
					s.unlock(t)
				}
				return got == "locked"
			})
		})
	}
}

// TestInterop_javaExpired: a ShedLock holder past its lockAtMostFor loses
// the job to lock4go, and its late unlock leaves lock4go's run alone.
func TestInterop_javaExpired(t *testing.T) {
	for _, in := range layouts(t) {
		t.Run(in.backend, func(t *testing.T) {
			ctx, a, b, name := deadline(t), runner(t, in.ex), runner(t, in.ex), jobName()
			s, got := startSide(t, in.backend, in.addr, name, 500*time.Millisecond, 0)
			if got != "locked" {
				t.Fatalf("javaside said %q, want locked", got)
			}
			var res jobs.Result
			testwait.For(t, 5*time.Second, "lock4go taking the job after ShedLock's at-most-for", func() bool {
				res = a.Run(ctx, name, func(context.Context) error {
					s.unlock(t) // ShedLock's late unlock, while lock4go runs
					if other := b.Run(ctx, name, nop); other.Outcome != jobs.Skipped {
						t.Errorf("after ShedLock's late unlock: %v, want skipped", other.Outcome)
					}
					return nil
				})
				return res.Outcome != jobs.Skipped
			})
			if res.Outcome != jobs.Ran {
				t.Fatalf("lock4go: %v (%v)", res.Outcome, res.Err)
			}
		})
	}
}
