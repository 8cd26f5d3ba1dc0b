package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	etcdexec "github.com/lock4go/lock4go/executors/etcd"
	redisexec "github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/executors/redlock"
	zkexec "github.com/lock4go/lock4go/executors/zookeeper"
	"github.com/lock4go/lock4go/internal/testserver"
)

// holderExpire is the lease of the test's Templates: renewed every second,
// so a broken Redis lock is noticed within about a second.
const holderExpire = 3 * time.Second

// backendCase is one backend the tool is run against.
type backendCase struct {
	kind string
	// flags connect the tool to the test server.
	flags []string
	// executor returns an executor over a client of its own, as another
	// process would have, closed at the end of the test.
	executor func(t *testing.T) executor.Executor
}

// forEachBackend runs f as a subtest per backend.
func forEachBackend(t *testing.T, f func(t *testing.T, b backendCase)) {
	for _, b := range []struct {
		err error
		c   func() backendCase
	}{
		{redisErr, redisCase}, {redlockErr, redlockCase}, {etcdErr, etcdCase}, {zkErr, zkCase}, {pgErr, pgCase}, {myErr, myCase},
	} {
		t.Run(b.c().kind, func(t *testing.T) {
			testserver.Check(t, b.err)
			f(t, b.c())
		})
	}
}

func redisCase() backendCase {
	addr := ""
	if redisSrv != nil {
		addr = redisSrv.Addr()
	}
	return backendCase{kind: "redis", flags: []string{"--redis", "redis://" + addr}, executor: func(t *testing.T) executor.Executor {
		c := goredis.NewClient(&goredis.Options{Addr: addr, ContextTimeoutEnabled: true})
		e, err := redisexec.New(c, redisexec.Options{Logger: discard})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close(); _ = c.Close() })
		return e
	}}
}

func redlockCase() backendCase {
	var urls, addrs []string
	for _, s := range redlockSrvs {
		urls = append(urls, "redis://"+s.Addr())
		addrs = append(addrs, s.Addr())
	}
	return backendCase{kind: "redlock", flags: []string{"--redlock", strings.Join(urls, ",")}, executor: func(t *testing.T) executor.Executor {
		var clients []goredis.UniversalClient
		for _, a := range addrs {
			c := goredis.NewClient(&goredis.Options{Addr: a, ContextTimeoutEnabled: true})
			t.Cleanup(func() { _ = c.Close() })
			clients = append(clients, c)
		}
		e, err := redlock.New(clients, redlock.Options{Logger: discard})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close() })
		return e
	}}
}

func etcdCase() backendCase {
	addr := ""
	if etcdSrv != nil {
		addr = etcdSrv.Addr()
	}
	return backendCase{kind: "etcd", flags: []string{"--etcd", "http://" + addr}, executor: func(t *testing.T) executor.Executor {
		c, err := clientv3.New(clientv3.Config{Endpoints: []string{addr}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		e, err := etcdexec.New(c, etcdexec.Options{Logger: discard})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close(); _ = c.Close() })
		return e
	}}
}

func zkCase() backendCase {
	addr := ""
	if zkSrv != nil {
		addr = zkSrv.Addr()
	}
	return backendCase{kind: "zookeeper", flags: []string{"--zookeeper", addr}, executor: func(t *testing.T) executor.Executor {
		return newZKExecutor(t, addr, zkexec.Options{}, "")
	}}
}

// newZKExecutor connects to addr, authenticates with digest ("user:pw")
// when it is not empty, and returns an executor closed at the end of the
// test.
func newZKExecutor(t *testing.T, addr string, o zkexec.Options, digest string) *zkexec.Executor {
	conn, events, err := zkexec.Dial([]string{addr}, 4*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	if err := awaitSession(ctx, events); err != nil {
		t.Fatal(err)
	}
	if user, pw, ok := strings.Cut(digest, ":"); ok {
		if o.ACL, err = zkexec.DigestAuth(ctx, conn, user, pw); err != nil {
			t.Fatal(err)
		}
	}
	e, err := zkexec.New(conn, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

var discard = slog.New(slog.DiscardHandler)

// newTemplate returns a Template over e, as a service would hold locks.
func newTemplate(t *testing.T, e executor.Executor) *lock4go.Template {
	tpl, err := lock4go.New(lock4go.Config{Expire: holderExpire, Logger: discard}, e)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// hold takes key through a new Template over a new executor of b and
// releases it at the end of the test.
func hold(t *testing.T, b backendCase, key string) *lock4go.Lock {
	l, err := newTemplate(t, b.executor(t)).Lock(t.Context(), key)
	if err != nil {
		t.Fatalf("Lock(%q) = %v", key, err)
	}
	t.Cleanup(func() { _ = l.Release(context.WithoutCancel(t.Context())) })
	return l
}

// uniqueKey returns a key no other test uses.
func uniqueKey(t *testing.T) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "cli-test:" + strings.ReplaceAll(t.Name(), "/", ":") + ":" + hex.EncodeToString(b[:])
}

// result is the outcome of one run of the tool.
type result struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

// runCLI runs the tool with args and stdin, in an environment without
// LOCK4GO_ variables plus env.
func runCLI(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("lock4go %v: %v", args, err)
	}
	t.Logf("lock4go %s → exit %d in %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.elapsed.Round(time.Millisecond), r.stdout, r.stderr)
	return r
}

// cleanEnv is the test's environment without LOCK4GO_ variables. A race
// detector in the binary exits at once (not after its default second) and
// with code 66 when it finds a race, which no test expects.
func cleanEnv() []string {
	env := []string{"GORACE=atexit_sleep_ms=0 exitcode=66"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LOCK4GO_") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	return env
}

// args joins argument lists.
func args(parts ...[]string) []string {
	var all []string
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

// wantCode fails the test unless r exited with code.
func wantCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
}
