package main

import (
	"crypto/tls"
	"crypto/x509"
	"os"
)

// wantsTLS reports whether a TLS flag was given.
func (c *connFlags) wantsTLS() bool {
	return c.tlsCA != "" || c.tlsCert != "" || c.tlsInsecure
}

// tlsConfig returns base (or a new configuration when base is nil) with the
// TLS flags applied, or nil when base is nil and no TLS flag was given.
func (c *connFlags) tlsConfig(base *tls.Config) (*tls.Config, error) {
	if base == nil && !c.wantsTLS() {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if base != nil {
		cfg = base.Clone()
	}
	if c.tlsCA != "" {
		pem, err := os.ReadFile(c.tlsCA)
		if err != nil {
			return nil, usagef("--tls-ca: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, usagef("--tls-ca %s: no PEM certificate in it", c.tlsCA)
		}
		cfg.RootCAs = pool
	}
	if c.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(c.tlsCert, c.tlsKey)
		if err != nil {
			return nil, usagef("--tls-cert/--tls-key: %v", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	cfg.InsecureSkipVerify = c.tlsInsecure // #nosec G402 -- asked for explicitly
	return cfg, nil
}
