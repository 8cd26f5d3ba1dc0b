package testserver

// StartEtcdTLS starts a single-member etcd like [StartEtcd] that serves
// clients over TLS only: its client URL is https://127.0.0.1:PORT
// ([Server.Addr] is 127.0.0.1:PORT as ever), it presents certs' server
// certificate, and it accepts only clients presenting a certificate signed
// by certs' CA (--client-cert-auth), such as the one in
// [Certs.ClientTLS]. Its readiness probe asks /health over TLS with that
// configuration. Peers still talk plain http on loopback.
func StartEtcdTLS(certs *Certs) (*Server, error) {
	return startEtcd(certs)
}

// etcdTLSArgs are the flags that make etcd serve clients with certs.
func etcdTLSArgs(certs *Certs) []string {
	return []string{
		"--cert-file", certs.ServerCertFile,
		"--key-file", certs.ServerKeyFile,
		"--trusted-ca-file", certs.CAFile,
		"--client-cert-auth",
	}
}
