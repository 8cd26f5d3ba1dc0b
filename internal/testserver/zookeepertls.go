package testserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// zkTLSJars are the Netty jars that ZooKeeper's TLS needs beyond those its
// jar's manifest names (netty-buffer, -common, -handler, -transport and
// -transport-native-epoll): without netty-codec the secure port accepts
// connections and then fails every handshake with
// ClassNotFoundException: io.netty.handler.codec.ByteToMessageDecoder.
var zkTLSJars = []string{
	"/usr/share/java/netty-codec.jar",
	"/usr/share/java/netty-resolver.jar",
	"/usr/share/java/netty-transport-native-unix-common.jar",
}

// StartZooKeeperTLS starts a standalone ZooKeeper like [StartZooKeeper]
// that serves clients over TLS only: [Server.Addr] is its secureClientPort
// (there is no plain client port), served by the Netty connection factory
// with certs' server certificate, and it accepts only clients presenting a
// certificate signed by certs' CA (ZooKeeper's default
// ssl.clientAuth=need), such as the one in [Certs.ClientTLS]. Key and trust
// stores are PEM files. Its readiness probe sends srvr over TLS. It returns
// an error wrapping [ErrNotInstalled] when java, the ZooKeeper jar or the
// Netty jars (Debian package libnetty-java) are missing.
func StartZooKeeperTLS(certs *Certs) (*Server, error) {
	return startZooKeeper(certs)
}

// zkTLSClasspath adds the Netty jars that TLS needs to classpath.
func zkTLSClasspath(classpath string) (string, error) {
	for _, jar := range zkTLSJars {
		if _, err := os.Stat(jar); err != nil {
			return "", notInstalled("Netty for ZooKeeper TLS (" + jar + ")")
		}
	}
	return classpath + ":" + strings.Join(zkTLSJars, ":"), nil
}

// zkTLSConfig writes the zoo.cfg lines of a TLS-only client port, and the
// PEM key store they name (ZooKeeper wants the key and its certificate in
// one file) into dir.
func zkTLSConfig(cfg *strings.Builder, dir string, port int, certs *Certs) error {
	key, err := os.ReadFile(certs.ServerKeyFile)
	if err != nil {
		return fmt.Errorf("testserver: zookeeper: %w", err)
	}
	cert, err := os.ReadFile(certs.ServerCertFile)
	if err != nil {
		return fmt.Errorf("testserver: zookeeper: %w", err)
	}
	keyStore := filepath.Join(dir, "keystore.pem")
	if err := os.WriteFile(keyStore, append(key, cert...), 0o600); err != nil {
		return fmt.Errorf("testserver: zookeeper: %w", err)
	}
	fmt.Fprintf(cfg, "secureClientPort=%d\nsecureClientPortAddress=127.0.0.1\n", port)
	fmt.Fprintf(cfg, "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory\n")
	fmt.Fprintf(cfg, "ssl.keyStore.location=%s\nssl.keyStore.type=PEM\n", keyStore)
	fmt.Fprintf(cfg, "ssl.trustStore.location=%s\nssl.trustStore.type=PEM\n", certs.CAFile)
	return nil
}
