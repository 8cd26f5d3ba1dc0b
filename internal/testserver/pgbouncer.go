package testserver

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
)

// StartPgBouncer starts PgBouncer on a free loopback port in front of the
// PostgreSQL server pg, in transaction pooling mode: every database name
// maps to pg's database of that name, logged in as "postgres", and a server
// connection serves one client only for one transaction. It runs as the
// user "postgres" when the tests run as root (PgBouncer refuses root).
// Connect with [PostgresDSN]. It returns an error wrapping
// [ErrNotInstalled] when pgbouncer is missing.
func StartPgBouncer(pg *Server) (*Server, error) {
	path, err := exec.LookPath("pgbouncer")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/pgbouncer"); serr != nil {
			return nil, notInstalled("pgbouncer")
		}
		path = "/usr/sbin/pgbouncer"
	}
	cred, err := serverCredential()
	if err != nil {
		return nil, err
	}
	return withPortRetry(func() (*Server, error) {
		ports, err := freePorts(1)
		if err != nil {
			return nil, err
		}
		dir, err := ownedTempDir("lock4go-pgbouncer-*", cred)
		if err != nil {
			return nil, err
		}
		addr := loopback(ports[0])
		ini := filepath.Join(dir, "pgbouncer.ini")
		if err := os.WriteFile(ini, []byte(pgbouncerINI(pg.Addr(), ports[0])), 0o644); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("testserver: pgbouncer: %w", err)
		}
		s := &Server{
			name:    "pgbouncer",
			path:    path,
			args:    []string{ini},
			dir:     dir,
			addr:    addr,
			cred:    cred,
			ownsDir: true,
			ready:   func(ctx context.Context) error { return postgresPing(ctx, addr) },
		}
		if err := s.start(); err != nil {
			return nil, err
		}
		return s, nil
	})
}

// pgbouncerINI is PgBouncer's configuration: transaction pooling in front
// of the server at target, listening on port.
func pgbouncerINI(target string, port int) string {
	host, pgPort := splitHostPort(target)
	return fmt.Sprintf(`[databases]
* = host=%s port=%s user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
ignore_startup_parameters = extra_float_digits
server_login_retry = 1
`, host, pgPort, port)
}

// splitHostPort splits "host:port", which addresses of this package
// always are.
func splitHostPort(addr string) (host, port string) {
	host, port, _ = net.SplitHostPort(addr)
	return host, port
}
