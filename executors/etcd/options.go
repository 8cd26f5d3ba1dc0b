package etcd

import "log/slog"

// Options configures an [Executor]. The zero value is ready to use.
type Options struct {
	// Name is the executor's name in a Template. Zero means "etcd".
	Name string

	// Priority orders executors in a Template; lower is preferred. Zero
	// means [Priority].
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

	// RWLockLayout writes the entries of locks and write locks in the
	// layout of the backend's read-write lock recipe, here as etcd's
	// recipes RWMutex writes its writers ("<k>/write/<lease hex>") instead
	// of as concurrency.Mutex does ("<k>/<lease hex>"). The recipe's
	// readers look only for "<k>/write/" entries, so set it where other
	// programs take recipe read locks on the same keys. concurrency.Mutex
	// and etcdctl lock see every entry under "<k>/", so they exclude
	// lock4go's locks either way; lock4go's own locks, read locks and the
	// recipe's entries exclude each other as their kinds require whatever
	// the setting.
	RWLockLayout bool
}

func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = "etcd"
	}
	if o.Priority == 0 {
		o.Priority = Priority
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Priority is the executor's default priority ([executor.Executor]): when a
// Template has several executors and none is chosen, the lowest wins. The
// built-in defaults prefer Redis (100), then ZooKeeper (200), etcd (300)
// and memory (400).
const Priority = 300
