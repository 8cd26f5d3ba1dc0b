package bench

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// etcdUser is a user of an etcd with authentication enabled, whose role
// may read and write the keys under Prefix.
type etcdUser struct {
	Name, Password, Prefix string
}

// enableEtcdAuth turns authentication on in the etcd serving plain HTTP at
// addr, as an operator would with etcdctl: user root with rootPassword (the
// root role), user u with a role of its own name that may read and write
// u.Prefix, then auth enable. Clients must then authenticate
// (clientv3.Config's Username and Password).
func enableEtcdAuth(ctx context.Context, addr, rootPassword string, u etcdUser) error {
	c, err := clientv3.New(clientv3.Config{
		Endpoints: []string{addr}, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
	})
	if err != nil {
		return fmt.Errorf("lockbench: etcd auth: %w", err)
	}
	defer c.Close()
	steps := []func() error{
		func() error { _, err := c.UserAdd(ctx, "root", rootPassword); return err },
		func() error { _, err := c.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := c.RoleAdd(ctx, u.Name); return err },
		func() error {
			_, err := c.RoleGrantPermission(ctx, u.Name, u.Prefix, clientv3.GetPrefixRangeEnd(u.Prefix),
				clientv3.PermissionType(clientv3.PermReadWrite))
			return err
		},
		func() error { _, err := c.UserAdd(ctx, u.Name, u.Password); return err },
		func() error { _, err := c.UserGrantRole(ctx, u.Name, u.Name); return err },
		func() error { _, err := c.AuthEnable(ctx); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("lockbench: etcd auth, step %d: %w", i+1, err)
		}
	}
	return nil
}
