package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/lock4go/lock4go/internal/testserver"
)

// The binary under test, built once by TestMain, and the servers it talks
// to: one of each, shared by the tests, which use keys of their own.
var (
	binary string

	redisSrv, etcdSrv, zkSrv, pgSrv, mySrv *testserver.Server
	redisErr, etcdErr, zkErr, pgErr, myErr error

	// redlockSrvs are the three masters of the Redlock cases.
	redlockSrvs []*testserver.Server
	redlockErr  error
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "lock4go-cli-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "lock4go")
	args := []string{"build", "-o", binary}
	if raceEnabled {
		args = append(args, "-race")
	}
	if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		return 1
	}
	redisSrv, redisErr = testserver.StartRedis()
	etcdSrv, etcdErr = testserver.StartEtcd()
	zkSrv, zkErr = testserver.StartZooKeeper()
	pgSrv, pgErr = startPostgres()
	mySrv, myErr = startMySQL()
	for range 3 {
		s, err := testserver.StartRedis()
		if err != nil {
			redlockErr = err
			break
		}
		redlockSrvs = append(redlockSrvs, s)
	}
	defer func() {
		for _, s := range append([]*testserver.Server{redisSrv, etcdSrv, zkSrv, pgSrv, mySrv}, redlockSrvs...) {
			if s != nil {
				_ = s.Stop()
			}
		}
	}()
	return m.Run()
}
