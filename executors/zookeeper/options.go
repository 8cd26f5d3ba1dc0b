package zookeeper

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
)

// DefaultBasePath is the parent of every lock node when [Options.BasePath]
// is empty.
const DefaultBasePath = "/lock4go"

// Lock4jBasePath is the base path of Lock4j's ZooKeeper executor (a Curator
// InterProcessMutex per key). With it, lock4go and Lock4j exclude each
// other on keys that need no escaping.
const Lock4jBasePath = "/curator/lock4j"

// Options configures an [Executor]. The zero value is ready to use.
type Options struct {
	// Name is the executor's name in a Template. Zero means "zookeeper".
	Name string

	// Priority orders executors in a Template; lower is preferred. Zero
	// means [Priority].
	Priority int

	// BasePath is the absolute path under which each key gets its lock
	// parent, BasePath + "/" + escaped key. Zero means [DefaultBasePath];
	// use [Lock4jBasePath] to share locks with Lock4j or Curator. It must
	// not be "/" and must not end with "/". Missing nodes of BasePath are
	// created as persistent nodes with ACL.
	BasePath string

	// ACL is set on every node the executor creates (base path, lock
	// parents, lock nodes). Zero means zk.WorldACL(zk.PermAll). See
	// [DigestAuth] for creator-only ACLs.
	ACL []zk.ACL

	// DisconnectGrace is how long the connection may stay without its
	// session before every lease of that session counts as lost (Lost
	// closes, Renew and Release report [executor.ErrLockNotHeld], and the
	// executor deletes the lease's node once it reconnects, should the
	// session have survived). While disconnected the client
	// cannot hear of its session's expiry, and once the session has expired
	// another owner may be granted the lock. The server expires a session no
	// earlier than the session timeout after it last heard from the client,
	// and go-zookeeper notices a silent server after two thirds of it, so a
	// grace safely stays below a third of the session timeout minus the
	// executor's 50ms polling interval. Zero means a lease is lost as soon as
	// the executor sees the connection down (Curator's advice: a SUSPENDED
	// connection no longer proves ownership). A negative value disables the
	// check: leases end only when ZooKeeper reports the session expired after
	// a reconnect, or when their node is deleted. Whatever the setting, the
	// Template counts a lease lost at its local end (see SessionTimeout).
	DisconnectGrace time.Duration

	// SessionTimeout is the session timeout the conn was dialled with (the
	// one passed to [Dial] or zk.Connect). A lease lasts, by the local
	// clock, until the last time its session was heard from (the send time
	// of a request ZooKeeper answered in that session; the executor sends
	// one every third of SessionTimeout while it holds leases) plus
	// SessionTimeout, less [executor.SafetyMargin]: the server expires a
	// session no earlier than that. Past it the lease counts as lost,
	// whatever the timers that watch the connection say. ZooKeeper may
	// negotiate a longer timeout (its minSessionTimeout), which is safe,
	// or a shorter one (its maxSessionTimeout), which is not: keep
	// SessionTimeout within the server's bounds. Zero means 4s, the
	// shortest timeout a server with the default tickTime (2s) negotiates:
	// set it when you dial with less, and a longer one spares heartbeats
	// and keeps locks through longer disconnections.
	SessionTimeout time.Duration

	// Logger receives background events: lost leases and nodes whose
	// deletion is retried. Zero means slog.Default(), as in every executor.
	Logger *slog.Logger

	// RWLockLayout writes locks and write locks in the layout of the
	// backend's read-write lock recipe, here naming their nodes as
	// Curator's InterProcessReadWriteLock writes them ("__WRIT__") instead
	// of as its InterProcessMutex does ("lock-", also zk.Lock's). Curator's
	// two recipes do not see each other's nodes, so a Java service on the
	// same lock path is excluded by lock4go's locks only if they share its
	// recipe: set it where Java services use InterProcessReadWriteLock,
	// leave it unset where they use InterProcessMutex (Lock4j's ZooKeeper
	// executor). Read locks are always "__READ__" nodes. Whatever the
	// setting, lock4go's locks, read locks and every node of those recipes
	// exclude each other as their kinds require.
	RWLockLayout bool
}

// withDefaults returns a copy of o with zero fields replaced by their
// defaults, or an error wrapping [executor.ErrInvalidConfig].
func (o Options) withDefaults() (Options, error) {
	if o.Name == "" {
		o.Name = "zookeeper"
	}
	if o.Priority == 0 {
		o.Priority = Priority
	}
	if o.BasePath == "" {
		o.BasePath = DefaultBasePath
	}
	if err := checkBasePath(o.BasePath); err != nil {
		return o, err
	}
	if len(o.ACL) == 0 {
		o.ACL = zk.WorldACL(zk.PermAll)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	switch {
	case o.SessionTimeout == 0:
		o.SessionTimeout = DefaultSessionTimeout
	case o.SessionTimeout < 0:
		return o, fmt.Errorf("zookeeper: session timeout %v: %w", o.SessionTimeout, executor.ErrInvalidConfig)
	}
	return o, nil
}

// checkBasePath accepts an absolute path other than the root, with no empty,
// "." or ".." component, outside ZooKeeper's own /zookeeper tree.
func checkBasePath(p string) error {
	bad := func(why string) error {
		return fmt.Errorf("zookeeper: base path %q: %s: %w", p, why, executor.ErrInvalidConfig)
	}
	if !strings.HasPrefix(p, "/") || p == "/" {
		return bad("must be absolute and not the root")
	}
	for _, c := range strings.Split(p[1:], "/") {
		if c == "" || c == "." || c == ".." {
			return bad("empty, \".\" or \"..\" component")
		}
		for i := 0; i < len(c); {
			r, size := utf8.DecodeRuneInString(c[i:])
			// '%' is fine in a base path: only key names are escaped.
			if r != '%' && !keepRune(r, size) {
				return bad("character ZooKeeper rejects")
			}
			i += size
		}
	}
	if p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/") {
		return bad("reserved for ZooKeeper")
	}
	return nil
}

// DefaultSessionTimeout is [Options.SessionTimeout] when zero: the shortest
// session timeout ZooKeeper negotiates with its default tickTime of 2s
// (minSessionTimeout is twice the tickTime).
const DefaultSessionTimeout = 4 * time.Second

// Priority is the executor's default priority ([executor.Executor]): when a
// Template has several executors and none is chosen, the lowest wins. The
// built-in defaults prefer Redis (100), then ZooKeeper (200), etcd (300)
// and memory (400).
const Priority = 200
