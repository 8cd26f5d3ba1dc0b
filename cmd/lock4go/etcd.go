package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/lock4go/lock4go/executor"
	etcdexec "github.com/lock4go/lock4go/executors/etcd"
)

// dialEtcd connects to --etcd and checks it answers a read.
func dialEtcd(ctx context.Context, c *connFlags) (*backend, error) {
	endpoints, err := etcdEndpoints(c.etcd)
	if err != nil {
		return nil, err
	}
	addr := strings.Join(endpoints, ",")
	cfg := clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: c.timeout,
		Username:    c.etcdUser,
		Password:    c.etcdPassword,
		Logger:      zap.NewNop(),
		Context:     context.WithoutCancel(ctx),
	}
	if cfg.TLS, err = etcdTLS(c, endpoints); err != nil {
		return nil, err
	}
	client, err := clientv3.New(cfg)
	if err != nil {
		return nil, connectErr(ctx, "etcd", endpoints, c.timeout, err)
	}
	// Any answer proves etcd reachable, a refusal to read included.
	_, err = client.Get(ctx, c.etcdPrefix+"lock4go-cli", clientv3.WithCountOnly())
	if err != nil && !errors.Is(err, rpctypes.ErrPermissionDenied) {
		_ = client.Close()
		return nil, connectErr(ctx, "etcd", endpoints, c.timeout, err)
	}
	e, err := etcdexec.New(client, etcdexec.Options{Prefix: c.etcdPrefix, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		_ = client.Close()
		return nil, err
	}
	b := &backend{kind: "etcd", addr: addr, exec: e, close: func() {
		_ = e.Close()
		_ = client.Close()
	}}
	b.breakNote = func(ctx context.Context, key string, h executor.Holder) string {
		return etcdNote(ctx, client, c.etcdPrefix+key, h)
	}
	return b, nil
}

// etcdTLS returns the TLS configuration for endpoints: TLS when a TLS
// flag is given or an endpoint is https://.
func etcdTLS(c *connFlags, endpoints []string) (*tls.Config, error) {
	var base *tls.Config
	for _, ep := range endpoints {
		if strings.HasPrefix(ep, "https://") {
			base = &tls.Config{MinVersion: tls.VersionTLS12}
		}
	}
	return c.tlsConfig(base)
}

// etcdNote: the holder's lease is kept, so the holder is not told; it names
// the lease to revoke to stop it, when it can find it.
func etcdNote(ctx context.Context, client *clientv3.Client, lockKey string, h executor.Holder) string {
	const note = "etcd does not tell the holder: its lease is kept, as it may carry the holder's other locks, so a lock4go watchdog lock, concurrency.Mutex or etcdctl lock runs on until it releases."
	resp, err := client.Get(ctx, lockKey+"/", clientv3.WithPrefix())
	if err != nil {
		return note
	}
	for _, kv := range resp.Kvs {
		if kv.CreateRevision == h.Token && kv.Lease != 0 {
			return fmt.Sprintf("%s To stop it, revoke its lease, which also ends its other locks: etcdctl lease revoke %x", note, kv.Lease)
		}
	}
	return note
}
