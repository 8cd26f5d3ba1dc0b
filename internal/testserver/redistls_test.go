package testserver

import (
	"crypto/tls"
	"testing"
	"time"
)

func TestStartRedisTLS(t *testing.T) {
	t.Parallel()
	certs, err := NewCerts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := StartRedisTLS(certs)
	Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	good, err := certs.ClientTLS()
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewCerts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	untrusted, err := other.ClientTLS()
	if err != nil {
		t.Fatal(err)
	}
	noClientCert := good.Clone()
	noClientCert.Certificates = nil
	for _, tc := range []struct {
		name string
		d    dialFunc
		ok   bool
	}{
		{"trusted client", tlsDial(good), true},
		{"plain text", dial, false},
		{"server not trusted", tlsDial(untrusted), false},
		{"no client certificate", tlsDial(noClientCert), false},
		{"client certificate of another CA", tlsDial(&tls.Config{RootCAs: good.RootCAs, Certificates: untrusted.Certificates}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := contextWithTimeout(t, time.Second)
			defer cancel()
			err := redisPingVia(ctx, tc.d, s.Addr())
			if tc.ok && err != nil {
				t.Fatalf("PING = %v, want PONG", err)
			}
			if !tc.ok && err == nil {
				t.Fatal("PING answered, want a refusal")
			}
		})
	}
}
