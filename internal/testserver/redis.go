package testserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
)

// StartRedis starts a standalone redis-server on a free loopback port with
// persistence off (--save "" --appendonly no), in a new temporary directory.
// extraArgs are appended to the command line, e.g. "--maxmemory", "10mb".
// It returns an error wrapping [ErrNotInstalled] when redis-server is
// missing.
func StartRedis(extraArgs ...string) (*Server, error) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, notInstalled("redis-server")
	}
	return withPortRetry(func() (*Server, error) {
		ports, err := freePorts(1)
		if err != nil {
			return nil, err
		}
		dir, err := os.MkdirTemp("", "lock4go-redis-*")
		if err != nil {
			return nil, fmt.Errorf("testserver: redis: %w", err)
		}
		s := newRedis(path, dir, ports[0], extraArgs)
		s.ownsDir = true
		if err := s.start(); err != nil {
			return nil, err
		}
		return s, nil
	})
}

// newRedis returns an unstarted redis-server listening on port with its data
// in dir.
func newRedis(path, dir string, port int, extraArgs []string) *Server {
	addr := loopback(port)
	args := []string{
		"--port", fmt.Sprint(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
	}
	return &Server{
		name:  "redis-server",
		path:  path,
		args:  append(args, extraArgs...),
		dir:   dir,
		addr:  addr,
		ready: func(ctx context.Context) error { return redisPing(ctx, addr) },
	}
}
