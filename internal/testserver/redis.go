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
	return startRedis(func(path, dir string, port int) *Server {
		return newRedis(path, dir, port, extraArgs)
	})
}

// startRedis starts the standalone redis-server that build returns for a
// free port and a new temporary directory, which the server owns.
func startRedis(build func(path, dir string, port int) *Server) (*Server, error) {
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
		s := build(path, dir, ports[0])
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
	return newRedisVia(path, dir, port, []string{"--port", fmt.Sprint(port)}, dial, extraArgs)
}

// newRedisVia returns an unstarted redis-server with its data in dir whose
// clients connect to port on loopback; listen are the arguments that open
// that port, and d is how the readiness probe connects.
func newRedisVia(path, dir string, port int, listen []string, d dialFunc, extraArgs []string) *Server {
	addr := loopback(port)
	args := append(listen,
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
	)
	return &Server{
		name:  "redis-server",
		path:  path,
		args:  append(args, extraArgs...),
		dir:   dir,
		addr:  addr,
		ready: func(ctx context.Context) error { return redisPingVia(ctx, d, addr) },
	}
}
