package testserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"testing"
	"time"
)

// tlsProbe asks a TLS server whether it serves, with cfg (nil: plain text).
type tlsProbe func(ctx context.Context, addr string, cfg *tls.Config) error

var tlsKinds = []struct {
	name  string
	start func(*Certs) (*Server, error)
	probe tlsProbe
}{
	{"etcd", StartEtcdTLS, etcdHealthy},
	{"zookeeper", StartZooKeeperTLS, func(ctx context.Context, addr string, cfg *tls.Config) error {
		mode, err := zkMode(ctx, addr, cfg)
		if err == nil && mode == "" {
			err = errors.New("no mode in srvr")
		}
		return err
	}},
}

// TestStartTLS checks that the TLS servers serve clients with the CA's
// client certificate, before and after a restart, and refuse plain text,
// clients without a certificate, and clients that do not trust the server.
func TestStartTLS(t *testing.T) {
	for _, k := range tlsKinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			certs, err := NewCerts(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			s, err := k.start(certs)
			Check(t, err)
			t.Cleanup(func() { _ = s.Stop() })
			trusted := clientTLS(t, certs)
			probe := func(cfg *tls.Config) error {
				ctx, cancel := contextWithTimeout(t, 2*time.Second)
				defer cancel()
				return k.probe(ctx, s.Addr(), cfg)
			}
			if err := probe(trusted); err != nil {
				t.Fatalf("trusted client: %v", err)
			}
			if err := s.Restart(); err != nil {
				t.Fatalf("Restart: %v", err)
			}
			if err := probe(trusted); err != nil {
				t.Fatalf("trusted client after Restart: %v", err)
			}
			if err := probe(nil); err == nil {
				t.Error("plain-text client served")
			}
			noCert := &tls.Config{RootCAs: trusted.RootCAs, MinVersion: tls.VersionTLS12}
			if err := probe(noCert); err == nil {
				t.Error("client without a certificate served")
			}
			other, err := NewCerts(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			var unknown x509.UnknownAuthorityError
			if err := probe(clientTLS(t, other)); !errors.As(err, &unknown) {
				t.Errorf("client of another CA: %v, want x509.UnknownAuthorityError", err)
			}
		})
	}
}

func clientTLS(t *testing.T, c *Certs) *tls.Config {
	t.Helper()
	cfg, err := c.ClientTLS()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
