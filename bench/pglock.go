package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	_ "github.com/lib/pq" // pglock's driver
)

// cirello.io/pglock cannot be fetched through the Go module proxy (it
// refuses the module), so the comparison runs its protocol, as its source
// describes it (v1, commit 38e8fcf): a row per lock name holding a record
// version number (RVN) drawn from a sequence and the owner's name, over
// database/sql and lib/pq (the driver pglock.New requires), each statement
// autocommit:
//
//   - acquire: SELECT nextval, then an INSERT ... ON CONFLICT that takes the
//     row if it has no RVN, or still has the RVN this client saw at its
//     previous attempt (nobody heartbeated for a whole lease);
//   - a heartbeat goroutine per held lock, which renews at once and then
//     every heartbeat period: SELECT nextval, UPDATE the RVN;
//   - release: stop the heartbeat, DELETE the row if its RVN is ours;
//   - a busy lock: sleep a whole lease, then try again.
//
// Its defaults: a 20s lease and a 5s heartbeat.

// pglockSchema is pglock's table and sequence.
const pglockSchema = `
CREATE TABLE IF NOT EXISTS pglock_locks (
	name character varying(255) PRIMARY KEY,
	record_version_number bigint,
	data bytea,
	owner character varying(255)
);
CREATE SEQUENCE IF NOT EXISTS pglock_locks_rvn CYCLE OWNED BY pglock_locks.record_version_number;`

// pglockTake inserts the lock row, or takes it over when it is free ($4 is
// the RVN seen at the previous attempt), and returns the row's RVN.
const pglockTake = `INSERT INTO pglock_locks AS l (name, record_version_number, data, owner)
VALUES ($1, $2, NULL, $3)
ON CONFLICT (name) DO UPDATE SET
	record_version_number = CASE WHEN l.record_version_number IS NULL OR l.record_version_number = $4 THEN $2 ELSE l.record_version_number END,
	owner = CASE WHEN l.record_version_number IS NULL OR l.record_version_number = $4 THEN $3 ELSE l.owner END
RETURNING record_version_number`

// PglockProtocol is pglock's protocol over db with lease and heartbeat.
// It is measured uncontended only (Waits is false): a busy lock sleeps a
// whole lease, so its hand-off is the lease (20s by default), which no
// contended or hand-off cell of a run could sample.
func PglockProtocol(db *sql.DB, lease, heartbeat time.Duration) *Subject {
	return &Subject{
		Name: "pglock protocol", Backend: Postgres, Kind: KindPeer,
		Note: fmt.Sprintf("cirello.io/pglock's statements (database/sql, lib/pq): RVN row, heartbeat %v, sleeps a %v lease when busy", heartbeat, lease),
		newLocker: func(int) (Locker, error) {
			return &pglockClient{db: db, lease: lease, heartbeat: heartbeat, name: owner(), seen: map[string]int64{}}, nil
		},
	}
}

// pglockClient is one pglock client (a goroutine's).
type pglockClient struct {
	db               *sql.DB
	lease, heartbeat time.Duration
	name             string
	seen             map[string]int64 // the RVN seen at the last busy attempt, by key
}

// Lock tries, and sleeps a lease between tries, until ctx ends.
func (c *pglockClient) Lock(ctx context.Context, key string) (Unlock, error) {
	for {
		rvn, err := c.nextRVN(ctx)
		if err != nil {
			return nil, err
		}
		var got int64
		if err := c.db.QueryRowContext(ctx, pglockTake, key, rvn, c.name, c.seen[key]).Scan(&got); err != nil {
			return nil, err
		}
		if got == rvn {
			delete(c.seen, key)
			return c.hold(key, rvn), nil
		}
		c.seen[key] = got
		select {
		case <-time.After(c.lease):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// hold starts the heartbeat of a held lock and returns its release.
func (c *pglockClient) hold(key string, rvn int64) Unlock {
	var mu sync.Mutex // guards rvn
	hctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			next, err := c.nextRVN(hctx)
			if err == nil {
				mu.Lock()
				_, err = c.db.ExecContext(hctx, "UPDATE pglock_locks SET record_version_number = $3 WHERE name = $1 AND record_version_number = $2", key, rvn, next)
				if err == nil {
					rvn = next
				}
				mu.Unlock()
			}
			select {
			case <-time.After(c.heartbeat):
			case <-hctx.Done():
				return
			}
		}
	})
	return func(ctx context.Context) error {
		stop()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		res, err := c.db.ExecContext(ctx, "DELETE FROM pglock_locks WHERE name = $1 AND record_version_number = $2", key, rvn)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return errors.New("pglock: lock already released")
		}
		return nil
	}
}

// nextRVN draws the next record version number.
func (c *pglockClient) nextRVN(ctx context.Context) (int64, error) {
	var rvn int64
	err := c.db.QueryRowContext(ctx, "SELECT nextval('pglock_locks_rvn')").Scan(&rvn)
	return rvn, err
}
