package bench

import (
	"errors"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/lock4go/lock4go/internal/testserver"
)

// TestEtcdAuthSetup: after enableEtcdAuth the user may write under its prefix only, and a
// client without credentials is refused.
func TestEtcdAuthSetup(t *testing.T) {
	s, err := testserver.StartEtcd()
	testserver.Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	u := etcdUser{Name: "app", Password: "app-s3cret", Prefix: "locks/"}
	if err := enableEtcdAuth(t.Context(), s.Addr(), "root-s3cret", u); err != nil {
		t.Fatal(err)
	}
	client := func(user, password string) *clientv3.Client {
		c, err := clientv3.New(clientv3.Config{
			Endpoints: []string{s.Addr()}, Username: user, Password: password,
			DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	app := client(u.Name, u.Password)
	if _, err := app.Put(t.Context(), "locks/k", "v"); err != nil {
		t.Errorf("put under the prefix = %v", err)
	}
	if _, err := app.Put(t.Context(), "other/k", "v"); !errors.Is(err, rpctypes.ErrPermissionDenied) {
		t.Errorf("put outside the prefix = %v; want permission denied", err)
	}
	if _, err := client("", "").Put(t.Context(), "locks/k", "v"); !errors.Is(err, rpctypes.ErrUserEmpty) && !errors.Is(err, rpctypes.ErrPermissionDenied) {
		t.Errorf("put without credentials = %v; want refused", err)
	}
}
