package postgres_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/goleak"

	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/testserver"
)

// The package's servers, started by TestMain: one PostgreSQL, migrated
// with the default Options, and a PgBouncer in transaction mode in front
// of it.
var (
	pgSrv, bouncer    *testserver.Server
	pgErr, bouncerErr error
)

func TestMain(m *testing.M) {
	pgSrv, pgErr = testserver.StartPostgres()
	if pgErr == nil {
		pgErr = migrate(pgSrv.Addr())
		bouncer, bouncerErr = testserver.StartPgBouncer(pgSrv)
	} else {
		bouncerErr = pgErr
	}
	code := m.Run()
	for _, s := range []*testserver.Server{bouncer, pgSrv} {
		if s != nil {
			_ = s.Resume() // in case a fault test failed before its cleanup
			_ = s.Stop()
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// migrate creates the default schema on the server at addr.
func migrate(addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgxpool.New(ctx, testserver.PostgresDSN(addr))
	if err != nil {
		return err
	}
	defer pool.Close()
	return postgres.Migrate(ctx, pool, postgres.Options{})
}
