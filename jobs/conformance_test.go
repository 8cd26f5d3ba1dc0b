package jobs_test

import (
	"sync"
	"testing"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/jobs/jobstest"
)

func TestConformance(t *testing.T) {
	forEach(t, func(t *testing.T, b *backend) {
		share := &memoryShare{}
		jobstest.Run(t, func(t *testing.T) *lock4go.Template { return b.template(t, share) },
			jobstest.Options{Lease: b.lease})
	})
}

// memoryShare is one memory executor that several Templates share, as
// processes share a server; each Template then has a local queue of its own.
type memoryShare struct {
	once sync.Once
	e    *memory.Executor
}

func (m *memoryShare) template(t *testing.T) *lock4go.Template {
	m.once.Do(func() { m.e = memory.New(memory.Options{}) })
	tpl, err := lock4go.New(lock4go.Config{}, m.e)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}
