package postgres

import (
	"cmp"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/queued"
)

// Options configures an [Executor] and [Migrate]. The zero value consists
// entirely of defaults; every field says what its zero value means.
type Options struct {
	// Name identifies the executor in a Template. Zero means "postgres".
	Name string

	// Priority orders executors when none is chosen explicitly; lower wins.
	// Zero means [Priority].
	Priority int

	// Table starts the names of the executor's tables, sequences and
	// functions ("<Table>_locks", "<Table>_acquire", ...): a lower-case SQL
	// identifier of at most 32 characters. Executors that share keys must
	// use the same Table (and Schema). Zero means "lock4go".
	Table string

	// Schema qualifies those names: a lower-case SQL identifier (a
	// reserved word such as user is fine: it is quoted), not a system
	// schema (pg_temp, pg_catalog, pg_toast, information_schema). Zero
	// means none: they are found through the connection's search_path, as
	// other unqualified names.
	Schema string

	// ListenDSN is the connection string of the executor's one LISTEN
	// connection, which tells its waiters of releases (open from the first
	// wait until 30s after the last). It must reach
	// PostgreSQL directly or through a pooler in session mode: in PgBouncer's
	// transaction mode a LISTEN is lost with the transaction. Zero means the
	// pool's own connection settings. The executor checks, when it starts
	// listening, that a notification arrives; when none does it warns, and
	// its waiters poll at their retry interval.
	ListenDSN string

	// ClaimWindow is how long a released key stays reserved for the executor
	// at the head of its wait queue: the woken waiter takes it within this
	// window, or anyone may take it after (a waiter that died while queued
	// costs the next one this window plus its retry interval at worst). Zero
	// means 200ms.
	ClaimWindow time.Duration

	// SubscribeTimeout bounds how long the first [Executor.WatchRelease]
	// waits for the LISTEN connection. Zero means 250ms.
	SubscribeTimeout time.Duration

	// CleanupTimeout bounds each background round trip (a round of voids of
	// attempts whose reply was lost, a departure from a wait queue, a
	// sweep) and a Release whose context has already ended, and is how
	// long a statement whose context is cancelled (not timed out) may
	// still take before its connection is closed; Close's whole clean-up
	// ends within one CleanupTimeout too. Zero means 2s.
	CleanupTimeout time.Duration

	// SweepInterval is how often the executor removes what crashed
	// processes left without a release (rows of expired leases, expired
	// queue entries and void markers; see docs/postgres.md). Zero means
	// one minute.
	SweepInterval time.Duration

	// Logger receives warnings (a failed void, a LISTEN connection that
	// does not receive notifications) and debug messages. Nil means
	// [slog.Default].
	Logger *slog.Logger
}

// Priority is the executor's default priority ([executor.Executor]): when a
// Template has several executors and none is chosen, the lowest wins. The
// built-in defaults prefer Redis (100), then ZooKeeper (200), etcd (300),
// PostgreSQL (350) and memory (400).
const Priority = 350

const (
	defaultName          = "postgres"
	defaultTable         = "lock4go"
	defaultSweepInterval = time.Minute
	maxTableLen          = 32
)

// identifier is what Table and Schema may be: a lower-case SQL identifier
// that needs no quoting.
var identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// withDefaults validates o and fills in its zero fields.
func (o Options) withDefaults() (Options, error) {
	t := queued.Timing{ClaimWindow: o.ClaimWindow, SubscribeTimeout: o.SubscribeTimeout, CleanupTimeout: o.CleanupTimeout}
	t, err := t.Check("postgres", executor.Duration{Name: "SweepInterval", Value: o.SweepInterval})
	if err != nil {
		return o, err
	}
	o.ClaimWindow, o.SubscribeTimeout, o.CleanupTimeout = t.ClaimWindow, t.SubscribeTimeout, t.CleanupTimeout
	o.Table = cmp.Or(o.Table, defaultTable)
	if !identifier.MatchString(o.Table) || len(o.Table) > maxTableLen {
		return o, fmt.Errorf("postgres: Table %q: want a lower-case identifier of at most %d characters: %w", o.Table, maxTableLen, executor.ErrInvalidConfig)
	}
	if err := validSchema(o.Schema); err != nil {
		return o, err
	}
	o.Name = cmp.Or(o.Name, defaultName)
	o.Priority = cmp.Or(o.Priority, Priority)
	o.SweepInterval = cmp.Or(o.SweepInterval, defaultSweepInterval)
	o.Logger = cmp.Or(o.Logger, slog.Default())
	return o, nil
}

// validSchema checks Options.Schema: none, or a lower-case identifier of
// at most 63 characters that names no system schema. Names that are
// reserved words (user, order, table) are fine: every statement quotes
// the schema.
func validSchema(s string) error {
	switch {
	case s == "":
		return nil
	case !identifier.MatchString(s) || len(s) > 63:
		return fmt.Errorf("postgres: Schema %q: want a lower-case identifier: %w", s, executor.ErrInvalidConfig)
	case strings.HasPrefix(s, "pg_") || s == "information_schema":
		// pg_temp (and pg_temp_N) is the session's temporary schema, whose
		// objects vanish with the session; the others are the system's.
		return fmt.Errorf("postgres: Schema %q: a system schema (pg_temp and pg_temp_N are a session's own, dropped with it): want a schema of your own, or none: %w", s, executor.ErrInvalidConfig)
	}
	return nil
}
