package testserver

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"
)

func TestNewCerts(t *testing.T) {
	c, err := NewCerts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.ClientTLS()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := tls.LoadX509KeyPair(c.ServerCertFile, c.ServerKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(srv.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: cfg.RootCAs, DNSName: "127.0.0.1"}); err != nil {
		t.Errorf("server certificate not valid for 127.0.0.1 under the CA: %v", err)
	}
	other, err := NewCerts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	otherCfg, err := other.ClientTLS()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: otherCfg.RootCAs, DNSName: "127.0.0.1"}); err == nil {
		t.Error("a second CA trusts the first one's server certificate")
	}
	if fi, err := os.Stat(c.ServerKeyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("server key file mode: %v %v", fi, err)
	}
}
