package etcd

import (
	"log/slog"

	"github.com/lock4go/lock4go/executor"
)

// Options configures an [Executor]. The zero value is ready to use.
type Options struct {
	// Name is the executor's name in a Template. Zero means "etcd".
	Name string

	// Priority orders executors in a Template; lower is preferred. Zero
	// means [executor.PriorityEtcd].
	Priority int

	// Prefix is prepended verbatim to every request key, so a lock on key
	// k lives under the etcd keys "<Prefix><k>/". Include a separator of
	// your own if you want one ("locks/"). Zero means no prefix: the key is
	// used as given, exactly as `etcdctl lock <key>` and
	// concurrency.NewMutex(session, key) use it, so they exclude each other
	// with this executor.
	Prefix string

	// Logger receives background failures (a queue entry that could not be
	// removed at once, a keep-alive session that ended). Nil means
	// slog.Default().
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = "etcd"
	}
	if o.Priority == 0 {
		o.Priority = executor.PriorityEtcd
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}
