package testserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// mariadbUser is the unprivileged user that runs mariadb-install-db and the
// server when the tests run as root: mariadbd refuses to run as root unless
// told to. Debian's mariadb-server package creates it.
const mariadbUser = "mysql"

// StartMariaDB starts a MariaDB server on a free loopback port, in a new
// temporary directory: mariadb-install-db, then mariadbd without any option
// file (--no-defaults), listening on 127.0.0.1 and on a socket in the
// directory, with a small buffer pool and InnoDB's durable defaults
// (innodb_flush_log_at_trx_commit = 1). The user root connects over TCP
// from 127.0.0.1 without a password. extraArgs are appended to the
// server's command line ("--name=value"). When the tests run as root, both
// run as the user "mysql" (the directory is handed to it). It returns an
// error wrapping [ErrNotInstalled] when MariaDB is missing.
//
// Connect with [MariaDBDSN].
func StartMariaDB(extraArgs ...string) (*Server, error) {
	bin, err := exec.LookPath("mariadbd")
	if err != nil {
		return nil, notInstalled("mariadb-server (mariadbd)")
	}
	install, err := exec.LookPath("mariadb-install-db")
	if err != nil {
		return nil, notInstalled("mariadb-server (mariadb-install-db)")
	}
	cred, err := credentialOf(mariadbUser, "mariadb-server")
	if err != nil {
		return nil, err
	}
	return withPortRetry(func() (*Server, error) {
		ports, err := freePorts(1)
		if err != nil {
			return nil, err
		}
		dir, err := ownedTempDir("lock4go-mariadb-*", cred)
		if err != nil {
			return nil, err
		}
		if err := installMariaDB(install, dir, cred); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		s := newMariaDB(bin, dir, ports[0], cred, extraArgs)
		s.ownsDir = true
		if err := s.start(); err != nil {
			return nil, err
		}
		return s, nil
	})
}

// MariaDBDSN returns the go-sql-driver/mysql data source name of the
// database db as root at addr (a server started by [StartMariaDB]), with
// the settings the lock4go MySQL executor needs (parseTime). db may be
// empty.
func MariaDBDSN(addr, db string) string {
	return "root@tcp(" + addr + ")/" + db + "?parseTime=true&timeout=5s"
}

// newMariaDB returns an unstarted MariaDB server on port with its data in
// dir/data.
func newMariaDB(bin, dir string, port int, cred *syscall.Credential, extraArgs []string) *Server {
	addr := loopback(port)
	args := []string{
		"--no-defaults",
		"--datadir=" + filepath.Join(dir, "data"),
		"--port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1",
		"--socket=" + filepath.Join(dir, "mysqld.sock"),
		"--pid-file=" + filepath.Join(dir, "mysqld.pid"),
		"--skip-name-resolve",
		"--innodb-buffer-pool-size=64M",
		"--max-connections=500",
		"--log-error=" + filepath.Join(dir, logName),
		"--tmpdir=" + filepath.Join(dir, "tmp"),
	}
	return &Server{
		name:  "mariadb",
		path:  bin,
		args:  append(args, extraArgs...),
		dir:   dir,
		addr:  addr,
		cred:  cred,
		ready: func(ctx context.Context) error { return mysqlGreeting(ctx, addr) },
	}
}

// installMariaDB creates the system tables in dir/data.
func installMariaDB(install, dir string, cred *syscall.Credential) error {
	// A temporary directory of its own: in the shared /tmp another
	// bootstrap's files came and went under make test-under-load ("Error on
	// delete of '/tmp/#sql-temptable-1a95-1-26.MAI'", and the bootstrap
	// failed).
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return fmt.Errorf("testserver: mariadb tmpdir: %w", err)
	}
	if cred != nil {
		if err := os.Chown(tmp, int(cred.Uid), int(cred.Gid)); err != nil {
			return fmt.Errorf("testserver: mariadb tmpdir: %w", err)
		}
	}
	cmd := exec.Command(install, "--no-defaults", "--datadir="+filepath.Join(dir, "data"),
		"--auth-root-authentication-method=normal", "--skip-test-db", "--tmpdir="+tmp)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("testserver: mariadb-install-db: %w\n%s", err, out)
	}
	return nil
}

// mysqlGreeting succeeds when the server at addr sends the MySQL
// protocol's initial handshake (protocol version 10), which it does once it
// accepts connections. It needs no driver, so that this package links none.
func mysqlGreeting(ctx context.Context, addr string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	hdr := make([]byte, 5) // 3 bytes length, 1 sequence, 1 protocol version
	if _, err := io.ReadFull(bufio.NewReader(c), hdr); err != nil {
		return err
	}
	if hdr[4] != 10 {
		return fmt.Errorf("testserver: mariadb at %s answered packet type %#x, not a handshake (too many connections, or starting)", addr, hdr[4])
	}
	return nil
}

// credentialOf returns the user the servers of package pkg run as: name
// when this process is root, nil (this process's user) otherwise.
func credentialOf(name, pkg string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("testserver: running as root, and the user %q to run the server as is missing (Debian's %s package creates it): %w", name, pkg, err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}
