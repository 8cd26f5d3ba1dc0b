package postgres_test

import (
	"context"
	"log"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/postgres"
)

// The pool comes from the caller, and may go through PgBouncer in
// transaction mode; the LISTEN connection of the wake-ups may not, so
// ListenDSN names the database itself. Migrate creates the tables once.
func ExampleNew() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "postgres://app@pgbouncer:6432/app")
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	opts := postgres.Options{ListenDSN: "postgres://app@db:5432/app"}
	if err := postgres.Migrate(ctx, pool, opts); err != nil {
		log.Fatal(err)
	}
	exec, err := postgres.New(pool, opts)
	if err != nil {
		log.Fatal(err)
	}
	defer exec.Close()
	tpl, err := lock4go.New(lock4go.Config{}, exec)
	if err != nil {
		log.Fatal(err)
	}
	err = tpl.Do(ctx, "order:42", func(ctx context.Context) error {
		return nil // the work; ctx ends if the lock is lost
	})
	if err != nil {
		log.Print(err)
	}
}
