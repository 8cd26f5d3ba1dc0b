package redis_test

import (
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/redis"
)

// The conformance suite passes over TLS (server verified against the test
// CA, client certificate required), as the ACL user.
func TestConformance_TLS(t *testing.T) {
	s, certs := tlsServer(t)
	cfg, err := certs.ClientTLS()
	if err != nil {
		t.Fatal(err)
	}
	admin := newClient(t, s.Addr(), withTLS(cfg))
	resetACLLog(t, admin)
	executortest.Run(t, func(t *testing.T) executor.Executor {
		return newExecutor(t, newClient(t, s.Addr(), ctxTimeouts, withTLS(cfg), asUser(aclUser, aclPass)), redis.Options{})
	}, executortest.Options{ShortTTL: 300 * time.Millisecond, SharedTokensUnkept: true, KeyPrefix: "lock4go:conformance"})
	checkACLLog(t, admin, aclUser)
}
