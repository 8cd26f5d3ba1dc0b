package main

import (
	"context"
	"crypto/tls"
	"errors"
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
	b.breakNote = etcdNote
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

// etcdNote tells who notices a broken etcd lock.
func etcdNote(context.Context, string, executor.Holder) string {
	return "a lock4go watchdog holder notices at its session's next keep-alive (within a third of its lease); one with a fixed lease (WithExpire), a concurrency.Mutex or etcdctl lock holder is not told and runs on until it releases."
}
