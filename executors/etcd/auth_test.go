package etcd_test

import (
	"testing"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/etcd"
)

// The conformance suite over TLS (client certificate) as a user whose role
// may read and write the lock prefix only.
func TestExecutor_conformance_tlsLeastPrivilege(t *testing.T) {
	s, certs := authServer(t)
	executortest.Run(t, func(t *testing.T) executor.Executor {
		cli, err := tlsClient(t, s, clientTLS(t, certs), lockUser, lockPassword)
		if err != nil {
			t.Fatal(err)
		}
		return newExec(t, cli, etcd.Options{Prefix: lockPrefix})
	}, conformanceOptions)
}
