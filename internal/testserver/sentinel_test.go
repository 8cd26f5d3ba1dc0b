package testserver

import (
	"context"
	"testing"
	"time"
)

// TestStartRedisSentinel moves the master of a fresh group to the replica in
// both ways a test can: SENTINEL FAILOVER, and SIGKILL of the master.
func TestStartRedisSentinel(t *testing.T) {
	for _, tc := range []struct {
		name     string
		failover func(ctx context.Context, s *Sentinel) (*Server, error)
	}{
		{"SentinelFailover", func(ctx context.Context, s *Sentinel) (*Server, error) { return s.Failover(ctx) }},
		{"KillMaster", func(ctx context.Context, s *Sentinel) (*Server, error) {
			killed, err := s.KillMaster(ctx)
			if err != nil {
				return nil, err
			}
			if killed != s.Redis[0] {
				t.Errorf("killed %s, want Redis[0] %s", killed.Addr(), s.Redis[0].Addr())
			}
			if err := alive(t, killed); err == nil {
				t.Error("killed master still answers")
			}
			return s.AwaitFailover(ctx, killed)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := StartRedisSentinel()
			Check(t, err)
			t.Cleanup(func() { _ = s.Stop() })
			ctx, cancel := contextWithTimeout(t, time.Minute)
			defer cancel()
			if m, err := s.Master(ctx); err != nil || m != s.Redis[0] {
				t.Fatalf("Master = %v, %v; want Redis[0] %s", m, err, s.Redis[0].Addr())
			}
			start := time.Now()
			m, err := tc.failover(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if m != s.Redis[1] {
				t.Fatalf("new master %s, want Redis[1] %s", m.Addr(), s.Redis[1].Addr())
			}
			t.Logf("new master after %v", time.Since(start).Round(time.Millisecond))
			if err := s.Stop(); err != nil {
				t.Fatal(err)
			}
			for _, p := range append(append([]*Server{}, s.Redis...), s.Sentinels...) {
				if p.PID() != 0 || alive(t, p) == nil {
					t.Errorf("%s %s still running after Stop", p.name, p.Addr())
				}
			}
		})
	}
}
