package testserver

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// startFunc starts one kind of server for the table tests.
type startFunc func() (*Server, error)

// serverKinds lists every single-server kind with a probe proving it serves.
var serverKinds = []struct {
	name  string
	start startFunc
}{
	{"redis", func() (*Server, error) { return StartRedis() }},
	{"zookeeper", StartZooKeeper},
	{"etcd", StartEtcd},
	{"postgres", func() (*Server, error) { return StartPostgres() }},
}

// alive probes s with its own readiness check and a short timeout: for
// checks that s does not answer.
func alive(t *testing.T, s *Server) error {
	t.Helper()
	ctx, cancel := contextWithTimeout(t, 500*time.Millisecond)
	defer cancel()
	return s.ready(ctx)
}

// serving probes s until it answers, for up to 10s, and returns the last
// probe's error: a server that was just started or resumed answers once
// the machine runs it, which on a busy machine takes longer than one
// probe's timeout.
func serving(t *testing.T, s *Server) error {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := alive(t, s)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestServer_lifecycle(t *testing.T) {
	for _, k := range serverKinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			s, err := k.start()
			Check(t, err)
			t.Cleanup(func() { _ = s.Stop() })
			if err := serving(t, s); err != nil {
				t.Fatalf("not serving after start: %v", err)
			}
			if !strings.HasPrefix(s.Addr(), "127.0.0.1:") {
				t.Fatalf("Addr() = %q, want loopback", s.Addr())
			}

			if err := s.Pause(); err != nil {
				t.Fatalf("Pause: %v", err)
			}
			if err := alive(t, s); err == nil {
				t.Fatal("paused server still answers")
			}
			if err := s.Resume(); err != nil {
				t.Fatalf("Resume: %v", err)
			}
			if err := serving(t, s); err != nil {
				t.Fatalf("not serving after Resume: %v", err)
			}

			oldPID := s.PID()
			if err := s.Kill(); err != nil {
				t.Fatalf("Kill: %v", err)
			}
			if err := s.Kill(); err != nil {
				t.Fatalf("second Kill: %v", err)
			}
			if err := alive(t, s); err == nil {
				t.Fatal("killed server still answers")
			}
			if err := s.Pause(); !errors.Is(err, ErrNotRunning) {
				t.Fatalf("Pause after Kill = %v, want ErrNotRunning", err)
			}
			addr := s.Addr()
			if err := s.Restart(); err != nil {
				t.Fatalf("Restart: %v", err)
			}
			if s.Addr() != addr || s.PID() == oldPID || s.PID() == 0 {
				t.Fatalf("after Restart addr %s pid %d, want addr %s and a new pid (old %d)", s.Addr(), s.PID(), addr, oldPID)
			}
			if err := serving(t, s); err != nil {
				t.Fatalf("not serving after Restart: %v", err)
			}

			dir := s.Dir()
			if err := s.Stop(); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			if err := s.Stop(); err != nil {
				t.Fatalf("second Stop: %v", err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Fatalf("dir %s still there after Stop: %v", dir, err)
			}
			if err := s.Restart(); !errors.Is(err, ErrNotRunning) {
				t.Fatalf("Restart after Stop = %v, want ErrNotRunning", err)
			}
		})
	}
}

func TestStartRedis_extraArgs(t *testing.T) {
	t.Parallel()
	s, err := StartRedis("--maxmemory", "12345678")
	Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	ctx, cancel := contextWithTimeout(t, time.Second)
	defer cancel()
	info, err := redisCommand(ctx, s.Addr(), "INFO", "memory")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(info, "maxmemory:12345678") {
		t.Fatalf("INFO memory lacks maxmemory:12345678:\n%s", info)
	}
}

func TestStartZooKeeper_fourLetterWords(t *testing.T) {
	t.Parallel()
	s, err := StartZooKeeper()
	Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	ctx, cancel := contextWithTimeout(t, time.Second)
	defer cancel()
	if out, err := fourLetter(ctx, s.Addr(), "ruok"); err != nil || out != "imok" {
		t.Fatalf("ruok = %q, %v; want imok", out, err)
	}
	if mode, err := zkMode(ctx, s.Addr(), nil); err != nil || mode != "standalone" {
		t.Fatalf("mode = %q, %v; want standalone", mode, err)
	}
	if out, err := fourLetter(ctx, s.Addr(), "conf"); err != nil || !strings.Contains(out, "minSessionTimeout=1000") {
		t.Fatalf("conf lacks minSessionTimeout=1000: %q, %v", out, err)
	}
}
