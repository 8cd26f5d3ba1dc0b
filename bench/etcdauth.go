package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"

	"github.com/lock4go/lock4go/executor"
	letcd "github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
)

// The user of the auth cells' etcd, whose role may read and write
// authPrefix only.
const (
	authUser, authPassword, authRootPassword = "lockbench", "lockbench-s3cret", "root-s3cret"
	authPrefix                               = "lockbench-auth/"
)

// AuthCell is one subject's hand-offs on one etcd, with authentication
// enabled or not.
type AuthCell struct {
	Subject string
	Auth    bool
	Handoff HandoffResult
	// Authentications is the Authenticate requests the server received
	// during the hand-offs, per hand-off.
	Authentications float64
	// Err is why the cell has no figures, or "".
	Err string
}

// EtcdAuthOptions shape the auth cells.
type EtcdAuthOptions struct {
	// Contenders is the goroutines on the key, each with a client (and
	// Template, or session) of its own, as processes would. Zero means 8.
	Contenders int
	// Rounds is how many times each subject is measured on each server, in
	// turn. Zero means 2.
	Rounds int
	Budget Budget // per measure; zero means 200 hand-offs or 3s
	Hold   time.Duration
}

func (o EtcdAuthOptions) withDefaults() EtcdAuthOptions {
	if o.Contenders == 0 {
		o.Contenders = 8
	}
	if o.Rounds == 0 {
		o.Rounds = 2
	}
	if o.Budget == (Budget{}) {
		o.Budget = Budget{Ops: 200, Time: 3 * time.Second}
	}
	if o.Hold == 0 {
		o.Hold = 5 * time.Millisecond
	}
	return o
}

// EtcdAuth measures hand-offs of lock4go and of etcd's concurrency.Mutex on
// env's etcd and on an etcd of its own with authentication enabled (a user
// whose role may use the lock prefix), each subject on each server in turn,
// o.Rounds times.
func EtcdAuth(ctx context.Context, env *Env, o EtcdAuthOptions, log io.Writer) (cells []AuthCell, err error) {
	o = o.withDefaults()
	srv, err := testserver.StartEtcd()
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, srv.Stop()) }()
	u := etcdUser{Name: authUser, Password: authPassword, Prefix: authPrefix}
	if err := enableEtcdAuth(ctx, srv.Addr(), authRootPassword, u); err != nil {
		return nil, err
	}
	servers := []struct {
		auth bool
		mk   func() (*clientv3.Client, error)
	}{
		{false, env.EtcdClient},
		{true, func() (*clientv3.Client, error) { return authClient(env, srv.Addr()) }},
	}
	for round := range o.Rounds {
		for _, name := range []string{"lock4go/etcd", "etcd concurrency.Mutex"} {
			for _, s := range servers {
				c, err := authCell(ctx, name, s.auth, s.mk, srv.Addr(), o)
				if err != nil {
					if ctx.Err() != nil {
						return cells, err
					}
					// One cell's failure (a timeout on a busy machine) leaves
					// the others' figures standing.
					fmt.Fprintf(log, "etcd auth %d: %s auth=%v: ERROR %v\n", round+1, name, s.auth, err)
					cells = append(cells, AuthCell{Subject: name, Auth: s.auth, Err: err.Error()})
					continue
				}
				fmt.Fprintf(log, "etcd auth %d: %-24s auth=%-5v hand-off p50 %-9v p99 %-9v (n=%d), %.2f authentications per hand-off\n",
					round+1, name, s.auth, c.Handoff.Handoff.P50.Round(time.Microsecond), c.Handoff.Handoff.P99.Round(time.Microsecond),
					c.Handoff.Handoff.N, c.Authentications)
				cells = append(cells, c)
			}
		}
	}
	return cells, nil
}

// authCell measures one subject's hand-offs on the server whose clients mk
// makes (authAddr is the auth server's, whose Authenticate calls are
// counted).
func authCell(ctx context.Context, name string, auth bool, mk func() (*clientv3.Client, error), authAddr string, o EtcdAuthOptions) (AuthCell, error) {
	var s *Subject
	var err error
	if name == "lock4go/etcd" {
		s, err = Lock4go(ctx, Etcd, o.Contenders, etcdExecutorOn(mk, authPrefix))
	} else {
		s, err = etcdMutexEach(mk)
	}
	if err != nil {
		return AuthCell{}, err
	}
	defer s.Close()
	key := fmt.Sprintf("%s%s-%d", authPrefix, slug(name), time.Now().UnixNano())
	// Warm up: every contender's client, session and streams, as in a
	// service that has been running.
	if _, err := Handoff(ctx, s, key, HandoffOptions{
		Waiters: o.Contenders - 1, Hold: o.Hold, AcquireTimeout: 10 * time.Second,
		Budget: Budget{Ops: 2 * o.Contenders, Time: 5 * time.Second},
	}); err != nil {
		return AuthCell{}, fmt.Errorf("%s: warm-up: %w", name, err)
	}
	before, err := authentications(ctx, authAddr)
	if err != nil {
		return AuthCell{}, err
	}
	h, err := Handoff(ctx, s, key, HandoffOptions{
		Waiters: o.Contenders - 1, Hold: o.Hold, AcquireTimeout: 10 * time.Second, Budget: o.Budget,
	})
	if err != nil {
		return AuthCell{}, err
	}
	after, err := authentications(ctx, authAddr)
	if err != nil {
		return AuthCell{}, err
	}
	c := AuthCell{Subject: name, Auth: auth, Handoff: h}
	if auth && h.Handoff.N > 0 {
		c.Authentications = float64(after-before) / float64(h.Handoff.N)
	}
	return c, nil
}

// authClient returns a client of the etcd at addr as the auth cells' user.
func authClient(env *Env, addr string) (*clientv3.Client, error) {
	c, err := clientv3.New(clientv3.Config{
		Endpoints: []string{addr}, Username: authUser, Password: authPassword,
		DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd client: %w", err)
	}
	env.onClose(c.Close)
	return c, nil
}

// etcdExecutorOn makes lock4go etcd executors with prefix, each over a
// client mk makes.
func etcdExecutorOn(mk func() (*clientv3.Client, error), prefix string) ExecutorFactory {
	return func(context.Context) (executor.Executor, func() error, error) {
		c, err := mk()
		if err != nil {
			return nil, nil, err
		}
		e, err := letcd.New(c, letcd.Options{Prefix: prefix})
		if err != nil {
			return nil, nil, err
		}
		return e, e.Close, nil
	}
}

// etcdMutexEach is etcd's concurrency.Mutex with a client and a session of
// its own per contender, as processes would have.
func etcdMutexEach(mk func() (*clientv3.Client, error)) (*Subject, error) {
	s := &Subject{
		Name: "etcd concurrency.Mutex", Backend: Etcd, Kind: KindPeer, Waits: true,
		Note: "revision queue, watch on predecessor; client and session per contender",
	}
	var sessions []*concurrency.Session
	s.newLocker = func(int) (Locker, error) {
		c, err := mk()
		if err != nil {
			return nil, err
		}
		sess, err := concurrency.NewSession(c)
		if err != nil {
			return nil, err
		}
		sessions = append(sessions, sess) // newLocker runs under s.mu
		return LockerFunc(func(ctx context.Context, key string) (Unlock, error) {
			m := concurrency.NewMutex(sess, key)
			if err := m.Lock(ctx); err != nil {
				return nil, err
			}
			return m.Unlock, nil
		}), nil
	}
	s.close = func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, sess := range sessions {
			_ = sess.Close()
		}
		return nil
	}
	return s, nil
}

// authentications returns the Authenticate requests the etcd at addr has
// received (its /metrics).
func authentications(ctx context.Context, addr string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	const metric = `grpc_server_msg_received_total{grpc_method="Authenticate",`
	for line := range strings.Lines(string(body)) {
		if strings.HasPrefix(line, metric) {
			f := strings.Fields(line)
			return strconv.ParseInt(f[len(f)-1], 10, 64)
		}
	}
	return 0, nil
}
