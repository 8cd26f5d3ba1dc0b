package reliability

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/lock4go/lock4go/internal/testserver"
)

// The servers every test of this package shares, one per backend, and the
// lockcheck binary, built once.
var (
	redisSrv, zkSrv, etcdSrv *testserver.Server
	redisErr, zkErr, etcdErr error

	lockcheckBin string
	lockcheckErr error
)

func TestMain(m *testing.M) {
	var wg sync.WaitGroup
	wg.Go(func() { redisSrv, redisErr = testserver.StartRedis() })
	wg.Go(func() { zkSrv, zkErr = testserver.StartZooKeeper() })
	wg.Go(func() { etcdSrv, etcdErr = testserver.StartEtcd() })
	binDir, err := os.MkdirTemp("", "lock4go-lockcheck-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	wg.Go(func() { lockcheckBin, lockcheckErr = buildLockcheck(binDir) })
	wg.Wait()

	code := m.Run()

	for _, s := range []*testserver.Server{redisSrv, zkSrv, etcdSrv} {
		if s != nil {
			_ = s.Stop()
		}
	}
	_ = os.RemoveAll(binDir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// buildLockcheck compiles cmd/lockcheck into dir, with the race detector
// when this test binary has it.
func buildLockcheck(dir string) (string, error) {
	bin := filepath.Join(dir, "lockcheck")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "./cmd/lockcheck")
	cmd := exec.Command("go", args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build lockcheck: %w\n%s", err, out)
	}
	return bin, nil
}
