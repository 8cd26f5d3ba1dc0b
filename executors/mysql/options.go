package mysql

import (
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// Options configures an [Executor], [Migrate] and [Check]. The zero value
// consists entirely of defaults; every field says what its zero value
// means.
type Options struct {
	// Name identifies the executor in a Template. Zero means "mysql".
	Name string

	// Priority orders executors when none is chosen explicitly; lower wins.
	// Zero means [Priority].
	Priority int

	// Table starts the names of the executor's tables and procedures
	// ("<Table>_locks", "<Table>_acquire", ...): a lower-case identifier of
	// at most 32 characters. Executors that share keys must use the same
	// Table (and Database). Zero means "lock4go".
	Table string

	// Database qualifies those names: a database (schema) name of at most
	// 64 characters, quoted in every statement. Zero means none: the
	// connection's current database, the one its DSN names.
	Database string

	// ClaimWindow is how long a released key stays reserved for the executor
	// at the head of its wait queue: the woken waiter takes it within this
	// window, or anyone may take it after (a waiter that died while queued
	// costs the next one this window plus its retry interval at worst). Zero
	// means 200ms.
	ClaimWindow time.Duration

	// CleanupTimeout bounds each background statement (the void of an
	// acquisition whose reply was lost, a departure from a wait queue, a
	// sweep) and a Release whose context has already ended, and is how
	// long a statement whose context is cancelled (not timed out) may
	// still take before its connection is closed; Close's whole clean-up
	// ends within one CleanupTimeout too. Zero means 2s.
	CleanupTimeout time.Duration

	// SweepInterval is how often the executor removes what crashed
	// processes left without a release (rows of expired leases, expired
	// queue entries, void markers and wakes; see docs/mysql.md), and checks
	// the server's durability settings again. Zero means one minute.
	SweepInterval time.Duration

	// AllowUnsafeDurability lets the executor run on a server that may
	// lose its last commits in a crash: innodb_flush_log_at_trx_commit
	// other than 1 (or MariaDB's 3), or sync_binlog other than 1 with the
	// binary log on. A crash may then lose locks the executor reported
	// held, and hand out a lock and a fencing token twice. These settings
	// are global: a session cannot raise them for its own commits. False
	// (the zero value) refuses such a server with
	// [executor.ErrInvalidConfig] before the first acquisition (see
	// [Check]); true logs a warning instead.
	AllowUnsafeDurability bool

	// Logger receives warnings (a failed void, unsafe durability settings,
	// wakes the server refused) and debug messages. Nil means
	// [slog.Default].
	Logger *slog.Logger
}

// Priority is the executor's default priority ([executor.Executor]): when a
// Template has several executors and none is chosen, the lowest wins. The
// built-in defaults prefer Redis (100), then ZooKeeper (200), etcd (300),
// PostgreSQL (350), MySQL (375) and memory (400).
const Priority = 375

const (
	defaultName           = "mysql"
	defaultTable          = "lock4go"
	defaultClaimWindow    = 200 * time.Millisecond
	defaultCleanupTimeout = 2 * time.Second
	defaultSweepInterval  = time.Minute
	maxTableLen           = 32
	maxDatabaseLen        = 64
)

// identifier is what Table may be: a lower-case identifier that needs no
// quoting.
var identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// withDefaults validates o and fills in its zero fields.
func (o Options) withDefaults() (Options, error) {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"ClaimWindow", o.ClaimWindow},
		{"CleanupTimeout", o.CleanupTimeout},
		{"SweepInterval", o.SweepInterval},
	} {
		if d.v < 0 {
			return o, fmt.Errorf("mysql: %s %v is negative: %w", d.name, d.v, executor.ErrInvalidConfig)
		}
	}
	if o.Table == "" {
		o.Table = defaultTable
	}
	if !identifier.MatchString(o.Table) || len(o.Table) > maxTableLen {
		return o, fmt.Errorf("mysql: Table %q: want a lower-case identifier of at most %d characters: %w", o.Table, maxTableLen, executor.ErrInvalidConfig)
	}
	if err := validDatabase(o.Database); err != nil {
		return o, err
	}
	if o.Name == "" {
		o.Name = defaultName
	}
	if o.Priority == 0 {
		o.Priority = Priority
	}
	o.ClaimWindow = orDefault(o.ClaimWindow, defaultClaimWindow)
	o.CleanupTimeout = orDefault(o.CleanupTimeout, defaultCleanupTimeout)
	o.SweepInterval = orDefault(o.SweepInterval, defaultSweepInterval)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o, nil
}

// validDatabase checks Options.Database: none, or a name MySQL accepts as
// a database (at most 64 characters, no NUL, not ending in a space) that
// is not one of the server's own.
func validDatabase(d string) error {
	switch {
	case d == "":
		return nil
	case len(d) > maxDatabaseLen || d[len(d)-1] == ' ' || strings.IndexByte(d, 0) >= 0:
		return fmt.Errorf("mysql: Database %q: want a database name of at most %d characters, without NUL or a trailing space: %w", d, maxDatabaseLen, executor.ErrInvalidConfig)
	case systemDatabases[strings.ToLower(d)]:
		return fmt.Errorf("mysql: Database %q: a system database: want a database of your own, or none: %w", d, executor.ErrInvalidConfig)
	}
	return nil
}

// systemDatabases are the server's own databases.
var systemDatabases = map[string]bool{"mysql": true, "information_schema": true, "performance_schema": true, "sys": true}

// orDefault returns d, or def when d is zero.
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}
