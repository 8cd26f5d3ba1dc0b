package testserver

import "fmt"

// StartRedisTLS starts a standalone redis-server like [StartRedis] that
// serves TLS only: no plain port (--port 0), --tls-port on a free loopback
// port with the server certificate and key of certs, and client
// certificates required and verified against certs' CA (--tls-auth-clients
// yes). [Server.Addr] is the TLS address; clients connect with
// certs.ClientTLS(). Its readiness probe speaks TLS too.
func StartRedisTLS(certs *Certs, extraArgs ...string) (*Server, error) {
	cfg, err := certs.ClientTLS()
	if err != nil {
		return nil, err
	}
	return startRedis(func(path, dir string, port int) *Server {
		listen := []string{
			"--port", "0",
			"--tls-port", fmt.Sprint(port),
			"--tls-cert-file", certs.ServerCertFile,
			"--tls-key-file", certs.ServerKeyFile,
			"--tls-ca-cert-file", certs.CAFile,
			"--tls-auth-clients", "yes",
		}
		return newRedisVia(path, dir, port, listen, tlsDial(cfg), extraArgs)
	})
}
