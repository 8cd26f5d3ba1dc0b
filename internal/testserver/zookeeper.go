package testserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// zkJar is the ZooKeeper server jar of the Debian zookeeper package; its
// manifest names the jars it depends on.
const zkJar = "/usr/share/java/zookeeper.jar"

// zkLoggerJar is an SLF4J binding that writes to stderr, hence to the
// server's log file; without one ZooKeeper logs nothing.
const zkLoggerJar = "/usr/share/java/slf4j-simple.jar"

// zkMember describes one ZooKeeper server of an ensemble.
type zkMember struct {
	id                     int
	client, peer, election int
}

// StartZooKeeper starts a standalone ZooKeeper server on a free loopback
// port, in a new temporary directory, with tickTime=500,
// minSessionTimeout=1000 (so tests can use short sessions), and every
// four-letter-word command allowed. It returns an error wrapping
// [ErrNotInstalled] when java or the ZooKeeper jar is missing.
func StartZooKeeper() (*Server, error) {
	return startZooKeeper(nil)
}

// startZooKeeper starts a standalone server, serving clients over TLS with
// certs when certs is not nil.
func startZooKeeper(certs *Certs) (*Server, error) {
	java, classpath, err := zkCommand()
	if err != nil {
		return nil, err
	}
	if certs != nil {
		if classpath, err = zkTLSClasspath(classpath); err != nil {
			return nil, err
		}
	}
	return withPortRetry(func() (*Server, error) {
		ports, err := freePorts(1)
		if err != nil {
			return nil, err
		}
		dir, err := os.MkdirTemp("", "lock4go-zookeeper-*")
		if err != nil {
			return nil, fmt.Errorf("testserver: zookeeper: %w", err)
		}
		s, err := newZooKeeper(java, classpath, dir, zkMember{id: 1, client: ports[0]}, nil, certs)
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		s.ownsDir = true
		if err := s.start(); err != nil {
			return nil, err
		}
		return s, nil
	})
}

// zkCommand finds java and builds the class path, or reports what is
// missing.
func zkCommand() (java, classpath string, err error) {
	java, err = exec.LookPath("java")
	if err != nil {
		return "", "", notInstalled("java")
	}
	if _, err := os.Stat(zkJar); err != nil {
		return "", "", notInstalled("ZooKeeper (" + zkJar + ")")
	}
	classpath = zkJar
	if _, err := os.Stat(zkLoggerJar); err == nil {
		classpath += ":" + zkLoggerJar
	}
	return java, classpath, nil
}

// newZooKeeper writes zoo.cfg (and myid, for an ensemble) into dir and
// returns an unstarted server. ensemble is nil for a standalone server.
// With certs it serves clients over TLS only (see [StartZooKeeperTLS]).
func newZooKeeper(java, classpath, dir string, me zkMember, ensemble []zkMember, certs *Certs) (*Server, error) {
	dataDir := filepath.Join(dir, "data")
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("testserver: zookeeper: %w", err)
	}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "tickTime=500\ninitLimit=20\nsyncLimit=10\n")
	fmt.Fprintf(&cfg, "minSessionTimeout=1000\nmaxSessionTimeout=60000\n")
	fmt.Fprintf(&cfg, "dataDir=%s\n", dataDir)
	if certs == nil {
		fmt.Fprintf(&cfg, "clientPort=%d\nclientPortAddress=127.0.0.1\n", me.client)
	} else if err := zkTLSConfig(&cfg, dir, me.client, certs); err != nil {
		return nil, err
	}
	fmt.Fprintf(&cfg, "admin.enableServer=false\n4lw.commands.whitelist=*\n")
	// Every client is on loopback: the default limit of 60 connections per
	// address would refuse a fleet of worker processes.
	fmt.Fprintf(&cfg, "maxClientCnxns=0\n")
	for _, m := range ensemble {
		fmt.Fprintf(&cfg, "server.%d=127.0.0.1:%d:%d\n", m.id, m.peer, m.election)
	}
	cfgPath := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(cfgPath, []byte(cfg.String()), 0o644); err != nil {
		return nil, fmt.Errorf("testserver: zookeeper: %w", err)
	}
	if ensemble != nil {
		if err := os.WriteFile(filepath.Join(dataDir, "myid"), fmt.Appendf(nil, "%d\n", me.id), 0o644); err != nil {
			return nil, fmt.Errorf("testserver: zookeeper: %w", err)
		}
	}
	addr := loopback(me.client)
	args := []string{
		"-Xms16m", "-Xmx256m", "-XX:+UseSerialGC", "-Djava.awt.headless=true",
		"-Dzookeeper.log.dir=" + dir,
		"-Dorg.slf4j.simpleLogger.showDateTime=true",
		"-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
		"-cp", classpath,
		"org.apache.zookeeper.server.quorum.QuorumPeerMain", cfgPath,
	}
	return &Server{
		name:  "zookeeper",
		path:  java,
		args:  args,
		dir:   dir,
		addr:  addr,
		ready: func(ctx context.Context) error { return zkServing(ctx, addr, certs) },
	}, nil
}

// zkServing succeeds when the server at addr serves clients: srvr reports a
// mode (standalone, leader or follower). With certs it asks over TLS.
func zkServing(ctx context.Context, addr string, certs *Certs) error {
	var cfg *tls.Config
	if certs != nil {
		var err error
		if cfg, err = certs.ClientTLS(); err != nil {
			return err
		}
	}
	mode, err := zkMode(ctx, addr, cfg)
	if err != nil {
		return err
	}
	if mode == "" {
		return errors.New("zookeeper not serving yet")
	}
	return nil
}

// zkMode returns the Mode line of srvr ("standalone", "leader",
// "follower"), or "" when the server is not serving. With cfg it asks over
// TLS.
func zkMode(ctx context.Context, addr string, cfg *tls.Config) (string, error) {
	out, err := fourLetterTLS(ctx, addr, "srvr", cfg)
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(out) {
		if mode, ok := strings.CutPrefix(strings.TrimSpace(line), "Mode: "); ok {
			return mode, nil
		}
	}
	return "", nil
}
