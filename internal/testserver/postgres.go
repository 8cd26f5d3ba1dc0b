package testserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
)

// postgresUser is the unprivileged user that runs initdb, the PostgreSQL
// server and PgBouncer when the tests run as root: both servers refuse to
// run as root. Debian's postgresql package creates it.
const postgresUser = "postgres"

// StartPostgres starts a PostgreSQL server on a free loopback port, in a
// new temporary directory: initdb with trust authentication for the user
// "postgres", then the server, with fsync off (a killed server keeps its
// committed data; only an operating-system crash could lose it) and
// pg_stat_statements loaded. extraArgs are appended to the server's command
// line ("-c", "name=value"). When the tests run as root, initdb and the
// server run as the user "postgres" (the directory is handed to it). It
// returns an error wrapping [ErrNotInstalled] when PostgreSQL is missing.
//
// Connect with [PostgresDSN]. Pause, Resume and Kill signal the server's
// backends too, which run in process groups of their own.
func StartPostgres(extraArgs ...string) (*Server, error) {
	return StartPostgresEnv(nil, extraArgs...)
}

// StartPostgresEnv starts a PostgreSQL server as [StartPostgres] does,
// with env added to the server's environment ("NAME=value"; see
// [Faketime]). The postmaster's children (the backends) inherit it.
func StartPostgresEnv(env []string, extraArgs ...string) (*Server, error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
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
		dir, err := ownedTempDir("lock4go-postgres-*", cred)
		if err != nil {
			return nil, err
		}
		if err := initdb(bin, dir, cred); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		s := newPostgres(bin, dir, ports[0], cred, extraArgs)
		s.ownsDir, s.env = true, env
		if err := s.start(); err != nil {
			return nil, err
		}
		return s, nil
	})
}

// PostgresDSN returns the connection string of the database "postgres" as
// the user "postgres" at addr (a PostgreSQL server or a PgBouncer started
// by this package).
func PostgresDSN(addr string) string {
	return "postgres://postgres@" + addr + "/postgres?sslmode=disable&connect_timeout=5"
}

// newPostgres returns an unstarted PostgreSQL server on port with its
// cluster in dir/data.
func newPostgres(bin, dir string, port int, cred *syscall.Credential, extraArgs []string) *Server {
	addr := loopback(port)
	args := []string{
		"-D", filepath.Join(dir, "data"),
		"-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=",
		"-c", "fsync=off",
		"-c", "full_page_writes=off",
		"-c", "max_connections=300",
		"-c", "shared_preload_libraries=pg_stat_statements",
		"-c", "log_min_messages=warning",
	}
	return &Server{
		name:       "postgres",
		path:       filepath.Join(bin, "postgres"),
		args:       append(args, extraArgs...),
		dir:        dir,
		addr:       addr,
		cred:       cred,
		tree:       true,
		stopSignal: syscall.SIGINT, // fast shutdown: SIGTERM waits for every client
		ready:      func(ctx context.Context) error { return postgresPing(ctx, addr) },
	}
}

// initdb creates the database cluster in dir/data.
func initdb(bin, dir string, cred *syscall.Credential) error {
	cmd := exec.Command(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"),
		"-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("testserver: initdb: %w\n%s", err, out)
	}
	return nil
}

// postgresBin returns the directory of the newest PostgreSQL's programs:
// Debian keeps them in /usr/lib/postgresql/<version>/bin; elsewhere they
// are looked up on PATH.
func postgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", notInstalled("postgresql (initdb, postgres)")
}

// version returns the version number in a path /usr/lib/postgresql/<v>/bin.
func version(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// serverCredential returns the user PostgreSQL and PgBouncer run as: the
// user "postgres" when this process is root, nil (this process's user)
// otherwise.
func serverCredential() (*syscall.Credential, error) {
	return credentialOf(postgresUser, "postgresql")
}

// ownedTempDir makes a temporary directory owned by cred's user (when not
// nil), so that a server running as that user can write in it.
func ownedTempDir(pattern string, cred *syscall.Credential) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", fmt.Errorf("testserver: %w", err)
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			_ = os.RemoveAll(dir)
			return "", fmt.Errorf("testserver: %w", err)
		}
	}
	return dir, nil
}
