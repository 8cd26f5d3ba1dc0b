package reliability

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/goleak"

	"github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/testserver"
)

// The servers every test of this package shares, one per backend, and the
// lockcheck binary, built once.
var (
	redisSrv, zkSrv, etcdSrv, pgSrv, mysqlSrv *testserver.Server
	redisErr, zkErr, etcdErr, pgErr, mysqlErr error

	lockcheckBin string
	lockcheckErr error
)

// parallel is how many tests run at once unless -test.parallel says
// otherwise: every backend's scenarios at once, as forEachBackend means
// them to run. Their time goes to waiting on servers, processes and
// leases, not to the CPU; go test's default, GOMAXPROCS, would run two
// backends at a time on a 2-core machine.
const parallel = 8

func TestMain(m *testing.M) {
	flag.Parse()
	if !flagGiven("test.parallel") {
		_ = flag.Set("test.parallel", strconv.Itoa(max(parallel, runtime.GOMAXPROCS(0))))
	}
	var wg sync.WaitGroup
	wg.Go(func() { redisSrv, redisErr = testserver.StartRedis() })
	wg.Go(func() { zkSrv, zkErr = testserver.StartZooKeeper() })
	wg.Go(func() { etcdSrv, etcdErr = testserver.StartEtcd() })
	wg.Go(func() { pgSrv, pgErr = startPostgres() })
	wg.Go(func() { mysqlSrv, mysqlErr = startMySQL() })
	binDir, err := os.MkdirTemp("", "lock4go-lockcheck-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	wg.Go(func() { lockcheckBin, lockcheckErr = buildLockcheck(binDir) })
	wg.Wait()

	code := m.Run()

	for _, s := range []*testserver.Server{redisSrv, zkSrv, etcdSrv, pgSrv, mysqlSrv} {
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

// flagGiven reports whether the command line set the flag name.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
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

// startPostgres starts the PostgreSQL server and creates the executor's
// schema (postgres.Migrate with the default options).
func startPostgres() (*testserver.Server, error) {
	s, err := testserver.StartPostgres()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := pgxpool.New(ctx, PostgresDSN(s.Addr()))
	if err == nil {
		err = postgres.Migrate(ctx, pool, postgres.Options{})
		pool.Close()
	}
	if err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// startMySQL starts a MariaDB server, creates the database "lock4go" and
// the executor's schema in it (mysql.Migrate with the default options).
func startMySQL() (*testserver.Server, error) {
	s, err := testserver.StartMariaDB()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = createMySQL(ctx, s.Addr())
	if err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// createMySQL creates the database "lock4go" at addr and migrates it.
func createMySQL(ctx context.Context, addr string) error {
	root, err := sql.Open("mysql", "root@tcp("+addr+")/?timeout=5s")
	if err != nil {
		return err
	}
	defer root.Close()
	if _, err := root.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS lock4go"); err != nil {
		return err
	}
	db, err := sql.Open("mysql", MySQLDSN(addr))
	if err != nil {
		return err
	}
	defer db.Close()
	return mysql.Migrate(ctx, db, mysql.Options{})
}
