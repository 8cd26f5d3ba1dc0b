package reliability

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	_ "github.com/go-sql-driver/mysql" // the database/sql driver of MySQL
	"github.com/jackc/pgx/v5/pgxpool"
	goredis "github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/executors/redlock"
	"github.com/lock4go/lock4go/executors/zookeeper"
)

// Backend kinds.
const (
	Redis     = "redis"
	ZooKeeper = "zookeeper"
	Etcd      = "etcd"
	Memory    = "memory"
	// Redlock is a quorum lock over independent Redis masters, one per
	// address.
	Redlock = "redlock"
	// Postgres is a PostgreSQL database (Addrs[0]) whose schema
	// postgres.Migrate created.
	Postgres = "postgres"
	// MySQL is a MySQL or MariaDB server (Addrs[0]) whose database
	// "lock4go" mysql.Migrate set up.
	MySQL = "mysql"
)

// Backend says how to reach a lock backend.
type Backend struct {
	// Kind is Redis, ZooKeeper, Etcd, Redlock, Postgres, MySQL or Memory.
	Kind string
	// Addrs are the servers' client addresses ("127.0.0.1:PORT").
	Addrs []string
	// Cluster makes the Redis client a Redis Cluster client.
	Cluster bool
	// Session is the ZooKeeper session timeout. Zero means 2s.
	Session time.Duration
	// Namespace is the ZooKeeper base path or the etcd key prefix; zero
	// means the executor's default.
	Namespace string
	// Logger receives the executors' messages. Nil discards them.
	Logger *slog.Logger
}

// ErrUnknownBackend reports a Backend.Kind this package does not know.
var ErrUnknownBackend = errors.New("reliability: unknown backend")

// Open connects to the backend and returns an executor over a client of its
// own, and a function that closes both (the executor first).
func (b Backend) Open(ctx context.Context) (executor.Executor, func() error, error) {
	log := b.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	switch b.Kind {
	case Redis:
		return openRedis(b, log)
	case Redlock:
		return openRedlock(b.Addrs, log)
	case ZooKeeper:
		return openZooKeeper(b, log)
	case Etcd:
		return openEtcd(ctx, b, log)
	case Postgres:
		return openPostgres(ctx, b.Addrs, log)
	case MySQL:
		return openMySQL(b.Addrs, log)
	case Memory:
		e := memory.New(memory.Options{})
		return e, func() error { return nil }, nil
	}
	return nil, nil, fmt.Errorf("%w: %q", ErrUnknownBackend, b.Kind)
}

// openRedis returns a Redis executor over a client of its own (a Redis
// Cluster client with b.Cluster).
func openRedis(b Backend, log *slog.Logger) (executor.Executor, func() error, error) {
	client := goredis.NewUniversalClient(&goredis.UniversalOptions{
		Addrs:                 b.Addrs,
		IsClusterMode:         b.Cluster,
		ContextTimeoutEnabled: true,
		DialTimeout:           time.Second,
	})
	e, err := redis.New(client, redis.Options{Logger: log})
	if err != nil {
		_ = client.Close()
		return nil, nil, err
	}
	return e, func() error { return errors.Join(e.Close(), client.Close()) }, nil
}

// openRedlock returns a Redlock executor over a client of its own per
// master.
func openRedlock(addrs []string, log *slog.Logger) (executor.Executor, func() error, error) {
	clients := make([]goredis.UniversalClient, len(addrs))
	for i, a := range addrs {
		clients[i] = goredis.NewClient(&goredis.Options{Addr: a, ContextTimeoutEnabled: true, DialTimeout: time.Second})
	}
	closeAll := func() error {
		var errs []error
		for _, c := range clients {
			errs = append(errs, c.Close())
		}
		return errors.Join(errs...)
	}
	e, err := redlock.New(clients, redlock.Options{Logger: log})
	if err != nil {
		return nil, nil, errors.Join(err, closeAll())
	}
	return e, func() error { return errors.Join(e.Close(), closeAll()) }, nil
}

// openZooKeeper returns a ZooKeeper executor over a session of its own
// (b.Session, 2s by default).
func openZooKeeper(b Backend, log *slog.Logger) (executor.Executor, func() error, error) {
	session := b.Session
	if session == 0 {
		session = 2 * time.Second
	}
	conn, _, err := zookeeper.Dial(b.Addrs, session)
	if err != nil {
		return nil, nil, err
	}
	e, err := zookeeper.New(conn, zookeeper.Options{BasePath: b.Namespace, SessionTimeout: session, Logger: log})
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return e, func() error { err := e.Close(); conn.Close(); return err }, nil
}

// openEtcd returns an etcd executor over a client of its own, which
// outlives ctx.
func openEtcd(ctx context.Context, b Backend, log *slog.Logger) (executor.Executor, func() error, error) {
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   b.Addrs,
		DialTimeout: 2 * time.Second,
		Logger:      zap.NewNop(),
		Context:     context.WithoutCancel(ctx),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("reliability: etcd client: %w", err)
	}
	e, err := etcd.New(client, etcd.Options{Prefix: b.Namespace, Logger: log})
	if err != nil {
		_ = client.Close()
		return nil, nil, err
	}
	return e, func() error { return errors.Join(e.Close(), client.Close()) }, nil
}

// openPostgres returns a PostgreSQL executor over a pool of its own to the
// database "postgres" as the user "postgres" at addrs[0] (the test
// servers' set-up), listening there too.
func openPostgres(ctx context.Context, addrs []string, log *slog.Logger) (executor.Executor, func() error, error) {
	if len(addrs) == 0 {
		return nil, nil, fmt.Errorf("reliability: postgres: no address")
	}
	pool, err := pgxpool.New(ctx, PostgresDSN(addrs[0]))
	if err != nil {
		return nil, nil, fmt.Errorf("reliability: postgres pool: %w", err)
	}
	e, err := postgres.New(pool, postgres.Options{Logger: log})
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return e, func() error { err := e.Close(); pool.Close(); return err }, nil
}

// PostgresDSN is the connection string of the test servers' database at
// addr.
func PostgresDSN(addr string) string {
	return "postgres://postgres@" + addr + "/postgres?sslmode=disable&connect_timeout=5"
}

// openMySQL returns a MySQL executor over a *sql.DB of its own to the
// database "lock4go" as root at addrs[0] (the test servers' set-up).
func openMySQL(addrs []string, log *slog.Logger) (executor.Executor, func() error, error) {
	if len(addrs) == 0 {
		return nil, nil, fmt.Errorf("reliability: mysql: no address")
	}
	db, err := sql.Open("mysql", MySQLDSN(addrs[0]))
	if err != nil {
		return nil, nil, fmt.Errorf("reliability: mysql: %w", err)
	}
	e, err := mysql.New(db, mysql.Options{Logger: log})
	if err != nil {
		_ = db.Close()
		return nil, nil, err
	}
	return e, func() error { return errors.Join(e.Close(), db.Close()) }, nil
}

// MySQLDSN is the DSN of the test servers' database at addr.
func MySQLDSN(addr string) string {
	return "root@tcp(" + addr + ")/lock4go?timeout=5s"
}
