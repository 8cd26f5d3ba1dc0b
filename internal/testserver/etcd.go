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

// etcdMember describes one member of an etcd cluster.
type etcdMember struct {
	name         string
	client, peer int
}

// StartEtcd starts a single-member etcd on a free loopback port, in a new
// temporary directory. It returns an error wrapping [ErrNotInstalled] when
// etcd is missing.
func StartEtcd() (*Server, error) {
	return startEtcd(nil)
}

// startEtcd starts a single-member etcd, serving clients over TLS with
// certs when certs is not nil.
func startEtcd(certs *Certs) (*Server, error) {
	path, err := exec.LookPath("etcd")
	if err != nil {
		return nil, notInstalled("etcd")
	}
	return withPortRetry(func() (*Server, error) {
		ports, err := freePorts(2)
		if err != nil {
			return nil, err
		}
		dir, err := os.MkdirTemp("", "lock4go-etcd-*")
		if err != nil {
			return nil, fmt.Errorf("testserver: etcd: %w", err)
		}
		m := etcdMember{name: "m1", client: ports[0], peer: ports[1]}
		s := newEtcd(path, dir, m, []etcdMember{m}, filepath.Base(dir), certs)
		s.ownsDir = true
		if err := s.start(); err != nil {
			return nil, err
		}
		return s, nil
	})
}

// newEtcd returns an unstarted etcd member me of cluster, with its data in
// dir. With certs it serves clients over TLS only (see [StartEtcdTLS]).
func newEtcd(path, dir string, me etcdMember, cluster []etcdMember, token string, certs *Certs) *Server {
	peers := make([]string, len(cluster))
	for i, m := range cluster {
		peers[i] = m.name + "=" + "http://" + loopback(m.peer)
	}
	addr := loopback(me.client)
	scheme := "http://"
	if certs != nil {
		scheme = "https://"
	}
	clientURL := scheme + addr
	peerURL := "http://" + loopback(me.peer)
	args := []string{
		"--name", me.name,
		"--data-dir", filepath.Join(dir, "data"),
		"--listen-client-urls", clientURL,
		"--advertise-client-urls", clientURL,
		"--listen-peer-urls", peerURL,
		"--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", strings.Join(peers, ","),
		"--initial-cluster-state", "new",
		"--initial-cluster-token", token,
		"--logger", "zap",
		"--log-outputs", "stderr",
	}
	ready := func(ctx context.Context) error { return etcdHealthy(ctx, addr, nil) }
	if certs != nil {
		args = append(args, etcdTLSArgs(certs)...)
		ready = func(ctx context.Context) error {
			cfg, err := certs.ClientTLS()
			if err != nil {
				return err
			}
			return etcdHealthy(ctx, addr, cfg)
		}
	}
	return &Server{
		name:  "etcd",
		path:  path,
		args:  args,
		dir:   dir,
		addr:  addr,
		ready: ready,
	}
}

// etcdHealthy succeeds when /health reports true (the member serves and its
// cluster has a leader). With cfg it asks over https with that client
// configuration.
func etcdHealthy(ctx context.Context, addr string, cfg *tls.Config) error {
	var h struct {
		Health string `json:"health"`
	}
	scheme := "http://"
	if cfg != nil {
		scheme = "https://"
	}
	if err := httpsJSON(ctx, cfg, scheme+addr+"/health", nil, &h); err != nil {
		return err
	}
	if h.Health != "true" {
		return errors.New("etcd not healthy yet")
	}
	return nil
}

// etcdIsLeader reports whether the member at addr is its cluster's leader,
// from the maintenance status (the gateway encodes ids as strings).
func etcdIsLeader(ctx context.Context, addr string) (bool, error) {
	var st struct {
		Header struct {
			MemberID string `json:"member_id"`
		} `json:"header"`
		Leader string `json:"leader"`
	}
	if err := httpJSON(ctx, "http://"+addr+"/v3/maintenance/status", []byte("{}"), &st); err != nil {
		return false, err
	}
	return st.Leader != "" && st.Leader == st.Header.MemberID, nil
}
