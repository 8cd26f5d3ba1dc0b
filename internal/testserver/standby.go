package testserver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// StartPostgresStandby starts a hot standby of the PostgreSQL server at
// from (the primary, or a [Proxy] in front of it, so that a test can cut
// replication): a pg_basebackup of it that keeps streaming from from
// (asynchronous replication, unless the primary names it in
// synchronous_standby_names), then the server on a free loopback port with
// extraArgs, run as [StartPostgres] runs its servers. Promote it with
// SELECT pg_promote(). It returns an error wrapping [ErrNotInstalled] when
// PostgreSQL is missing.
func StartPostgresStandby(from string, extraArgs ...string) (*Server, error) {
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
		dir, err := ownedTempDir("lock4go-standby-*", cred)
		if err != nil {
			return nil, err
		}
		if err := basebackup(bin, dir, from, cred); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		s := newPostgres(bin, dir, ports[0], cred, extraArgs)
		s.ownsDir = true
		if err := s.start(); err != nil {
			return nil, err
		}
		return s, nil
	})
}

// basebackup copies the cluster of the server at from into dir/data,
// configured to stream from it as a standby.
func basebackup(bin, dir, from string, cred *syscall.Credential) error {
	host, port := splitHostPort(from)
	cmd := exec.Command(filepath.Join(bin, "pg_basebackup"), "-h", host, "-p", port, "-U", "postgres",
		"-D", filepath.Join(dir, "data"), "-R", "-X", "stream", "-c", "fast", "--no-sync")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("testserver: pg_basebackup: %w\n%s", err, out)
	}
	return nil
}
