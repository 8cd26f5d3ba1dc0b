package etcd_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/lock4go/lock4go/internal/testserver"
)

// The TLS etcd with auth enabled, shared by the tests of auth_test.go and
// started by the first of them: clients need the CA's client certificate,
// and root (rootPassword) set auth up with the lines of docs/etcd.md
// (authSetup).
var tlsAuth struct {
	once  sync.Once
	srv   *testserver.Server
	certs *testserver.Certs
	dir   string
	err   error
}

const (
	rootPassword = "root-s3cret"
	// lockUser may read and write the lock prefix lockPrefix only.
	lockUser, lockPassword, lockPrefix = "lock4go", "lock4go-s3cret", "locks/"
)

// authSetup is the etcdctl lines of docs/etcd.md ("Least privilege and
// TLS"), with the passwords of this file.
var authSetup = [][]string{
	{"user", "add", "root", "--new-user-password=" + rootPassword},
	{"user", "grant-role", "root", "root"},
	{"role", "add", "lock4go"},
	{"role", "grant-permission", "--prefix=true", "lock4go", "readwrite", lockPrefix},
	{"user", "add", lockUser, "--new-user-password=" + lockPassword},
	{"user", "grant-role", lockUser, "lock4go"},
	{"auth", "enable"},
}

// authServer returns the shared TLS etcd with auth enabled and its
// certificates, starting it on first use.
func authServer(t *testing.T) (*testserver.Server, *testserver.Certs) {
	t.Helper()
	tlsAuth.once.Do(func() { tlsAuth.err = startAuthServer() })
	testserver.Check(t, tlsAuth.err)
	return tlsAuth.srv, tlsAuth.certs
}

func startAuthServer() error {
	if _, err := exec.LookPath("etcdctl"); err != nil {
		return testserver.ErrNotInstalled
	}
	dir, err := os.MkdirTemp("", "lock4go-etcd-certs-*")
	if err != nil {
		return err
	}
	tlsAuth.dir = dir
	if tlsAuth.certs, err = testserver.NewCerts(dir); err != nil {
		return err
	}
	if tlsAuth.srv, err = testserver.StartEtcdTLS(tlsAuth.certs); err != nil {
		return err
	}
	for _, args := range authSetup {
		if err := etcdctl(tlsAuth.srv, tlsAuth.certs, "", args...); err != nil {
			return err
		}
	}
	return nil
}

// stopAuthServer stops the shared TLS etcd, if it was started.
func stopAuthServer() {
	if tlsAuth.srv != nil {
		_ = tlsAuth.srv.Stop()
	}
	if tlsAuth.dir != "" {
		_ = os.RemoveAll(tlsAuth.dir)
	}
}

// etcdctl runs etcdctl against s over TLS with certs, as user ("name:password",
// or "" for none).
func etcdctl(s *testserver.Server, certs *testserver.Certs, user string, args ...string) error {
	flags := []string{
		"--endpoints=https://" + s.Addr(),
		"--cacert=" + certs.CAFile, "--cert=" + certs.ClientCertFile, "--key=" + certs.ClientKeyFile,
	}
	if user != "" {
		flags = append(flags, "--user="+user)
	}
	cmd := exec.Command("etcdctl", append(flags, args...)...)
	cmd.Env = append(os.Environ(), "ETCDCTL_API=3")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("etcdctl %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// tlsClient returns a client of s over TLS with cfg, as user (no auth when
// user is ""), closed when the test ends. It returns clientv3.New's error.
func tlsClient(t *testing.T, s *testserver.Server, cfg *tls.Config, user, password string) (*clientv3.Client, error) {
	t.Helper()
	return tlsClientTimeout(t, s, cfg, user, password, 5*time.Second)
}

// tlsClientTimeout is tlsClient with clientv3's DialTimeout.
func tlsClientTimeout(t *testing.T, s *testserver.Server, cfg *tls.Config, user, password string, dial time.Duration) (*clientv3.Client, error) {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{"https://" + s.Addr()},
		TLS:         cfg,
		Username:    user,
		Password:    password,
		DialTimeout: dial,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli, nil
}

// clientTLS returns certs' client configuration.
func clientTLS(t *testing.T, certs *testserver.Certs) *tls.Config {
	t.Helper()
	cfg, err := certs.ClientTLS()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// authentications returns how many Authenticate requests s has received,
// from its Prometheus metrics (fetched over TLS with certs).
func authentications(t *testing.T, s *testserver.Server, certs *testserver.Certs) int {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: clientTLS(t, certs)}}
	resp, err := hc.Get("https://" + s.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	const metric = `grpc_server_msg_received_total{grpc_method="Authenticate",`
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, metric) {
			f := strings.Fields(line)
			n, err := strconv.Atoi(f[len(f)-1])
			if err != nil {
				t.Fatalf("metric line %q: %v", line, err)
			}
			return n
		}
	}
	return 0
}
