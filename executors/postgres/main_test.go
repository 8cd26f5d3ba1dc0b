package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/exectest"
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
	exectest.Exit(m.Run(), bouncer, pgSrv)
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
