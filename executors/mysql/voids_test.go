package mysql_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/internal/testwait"
)

// TestVoids_lateJoin: a waiting writer's acquisition whose reply was lost
// (its deadline passed while another session held the key's row) queues
// the executor when it lands, after the waiter gave up; its void then
// removes the queue entry too, so that readers are not kept out until the
// entry expires (30s). It failed before the void took the member: readers
// were refused for the whole wait.
func TestVoids_lateJoin(t *testing.T) {
	t.Parallel()
	a, b, c := newExecutor(t, rootDB(t), mysql.Options{}), newExecutor(t, rootDB(t), mysql.Options{}), newExecutor(t, rootDB(t), mysql.Options{})
	key := uniq(t, "latejoin:")
	r := req(key, time.Minute)
	r.Shared = true
	reader, err := a.Acquire(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Release(context.WithoutCancel(t.Context()))
	tx := lockRows(t, rootDB(t), nil)
	if _, err := tx.ExecContext(t.Context(), "SELECT k FROM lock4go_locks WHERE k = ? FOR UPDATE", key); err != nil {
		t.Fatal(err)
	}
	w := req(key, time.Minute)
	w.Wait = true
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	_, err = b.Acquire(ctx, w)
	cancel()
	if err == nil || errors.Is(err, executor.ErrNotAcquired) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the writer's Acquire behind a held row = %v, want its deadline", err)
	}
	_ = tx.Rollback() // the lost statement lands: it queues b behind the reader
	r2 := req(key, time.Minute)
	r2.Shared = true
	testwait.For(t, 5*time.Second, "a second reader", func() bool {
		l, err := c.Acquire(t.Context(), r2)
		if err == nil {
			_ = l.Release(t.Context())
		}
		r2.Owner = owner()
		return err == nil
	})
}
