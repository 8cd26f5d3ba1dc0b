package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
)

// ExecutorFactory makes one executor (over a client of its own) and says
// how to close it.
type ExecutorFactory func(ctx context.Context) (executor.Executor, func() error, error)

// Lock4go is a lock4go Template with its default Config (30s lease renewed
// by the watchdog, 3s acquire timeout, 100ms retry interval, woken early by
// the executor). With templates > 1 the subject has that many Templates,
// each over its own executor and client, as separate processes would:
// contender g uses Template g % templates. Within one Template the local
// queue lets one goroutine per key at a time reach the backend.
func Lock4go(ctx context.Context, backend Backend, templates int, mk ExecutorFactory) (*Subject, error) {
	var (
		tpls    []*lock4go.Template
		closers []func() error
	)
	closeAll := func() error {
		var errs []error
		for _, c := range closers {
			errs = append(errs, c())
		}
		return errors.Join(errs...)
	}
	for range templates {
		e, closeExec, err := mk(ctx)
		if err != nil {
			return nil, errors.Join(err, closeAll())
		}
		closers = append(closers, closeExec)
		t, err := lock4go.New(lock4go.Config{}, e)
		if err != nil {
			return nil, errors.Join(err, closeAll())
		}
		tpls = append(tpls, t)
	}
	name, note := "lock4go/"+string(backend), "one Template: local queue, then the backend"
	if templates > 1 {
		name = fmt.Sprintf("lock4go/%s ×%d Templates", backend, templates)
		note = fmt.Sprintf("%d Templates with their own clients (simulated processes)", templates)
	}
	return &Subject{
		Name: name, Backend: backend, Kind: KindLock4go, Waits: true, Note: note, Templates: templates,
		newLocker: func(g int) (Locker, error) { return templateLocker(tpls[g%len(tpls)]), nil },
		close:     closeAll,
	}, nil
}

func templateLocker(t *lock4go.Template) Locker {
	return LockerFunc(func(ctx context.Context, key string) (Unlock, error) {
		l, err := t.Lock(ctx, key)
		if err != nil {
			return nil, err
		}
		return l.Release, nil
	})
}
