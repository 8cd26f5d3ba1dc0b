package main

import (
	"strings"
	"testing"

	"github.com/lock4go/lock4go/internal/testserver"
)

// TestTLS_redis connects to a redis-server that speaks only TLS and
// requires client certificates.
func TestTLS_redis(t *testing.T) {
	certs, err := testserver.NewCerts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other, err := testserver.NewCerts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tlsAddr := closedPort(t)
	_, port, _ := strings.Cut(tlsAddr, ":")
	srv, err := testserver.StartRedis("--tls-port", port, "--tls-cert-file", certs.ServerCertFile,
		"--tls-key-file", certs.ServerKeyFile, "--tls-ca-cert-file", certs.CAFile, "--tls-auth-clients", "yes")
	testserver.Check(t, err)
	defer srv.Stop()
	client := []string{"--tls-cert", certs.ClientCertFile, "--tls-key", certs.ClientKeyFile}
	tests := []struct {
		name  string
		flags []string
		code  int
	}{
		{"CA and client certificate", append([]string{"--redis", "rediss://" + tlsAddr, "--tls-ca", certs.CAFile}, client...), exitNotHeld},
		{"redis URL with TLS flags", append([]string{"--redis", "redis://" + tlsAddr, "--tls-ca", certs.CAFile}, client...), exitNotHeld},
		{"skip verify", append([]string{"--redis", "rediss://" + tlsAddr, "--tls-insecure-skip-verify"}, client...), exitNotHeld},
		{"unknown CA", append([]string{"--redis", "rediss://" + tlsAddr, "--tls-ca", other.CAFile}, client...), exitUnreachable},
		{"no client certificate", []string{"--redis", "rediss://" + tlsAddr, "--tls-ca", certs.CAFile}, exitUnreachable},
		{"plain text to the TLS port", []string{"--redis", "redis://" + tlsAddr}, exitUnreachable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, "", nil, append([]string{"inspect", "--timeout", "2s", uniqueKey(t)}, tc.flags...)...)
			wantCode(t, r, tc.code)
		})
	}
}
