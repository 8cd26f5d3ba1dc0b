package main

import (
	"context"
	"os"
	"regexp"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// The statements of ShedLock's PostgresSqlServerTimeStatementsSource, for
// its default table and columns, as its source builds them.
const (
	sqlNow           = "timezone('utc', CURRENT_TIMESTAMP)"
	sqlLockAtMostFor = sqlNow + " + make_interval(secs => :lockAtMostForInterval)"
	sqlUpdateClause  = " SET lock_until = " + sqlLockAtMostFor + ", locked_at = " + sqlNow +
		", locked_by = :lockedBy WHERE shedlock.name = :name AND shedlock.lock_until <= " + sqlNow
	sqlInsert = "INSERT INTO shedlock(name, lock_until, locked_at, locked_by) VALUES(:name, " + sqlLockAtMostFor +
		", " + sqlNow + ", :lockedBy) ON CONFLICT (name) DO UPDATE" + sqlUpdateClause
	sqlUpdate     = "UPDATE shedlock" + sqlUpdateClause
	sqlAtLeastFor = "locked_at + make_interval(secs => :lockAtLeastForInterval)"
	sqlUnlock     = "UPDATE shedlock SET lock_until = CASE WHEN " + sqlAtLeastFor + " > " + sqlNow + " THEN " + sqlAtLeastFor + " ELSE " + sqlNow + " END WHERE name = :name AND locked_by = :lockedBy"
)

// jdbc is ShedLock's StorageBasedLockProvider over its JdbcTemplate
// storage accessor: insertRecord, then updateRecord when the insert
// changed nothing; the unlock statement.
type jdbc struct {
	conn     *pgx.Conn
	lockedBy string
}

func newJDBC(ctx context.Context, addr string) (*jdbc, error) {
	conn, err := pgx.Connect(ctx, "postgres://postgres@"+addr+"/postgres?sslmode=disable")
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname() // ShedLock's default lockedBy
	return &jdbc{conn: conn, lockedBy: host}, nil
}

func (j *jdbc) lock(ctx context.Context, c lockConfig) (bool, error) {
	ok, err := j.exec(ctx, sqlInsert, c)
	if err != nil || ok {
		return ok, err
	}
	return j.exec(ctx, sqlUpdate, c)
}

func (j *jdbc) unlock(ctx context.Context, c lockConfig) error {
	_, err := j.exec(ctx, sqlUnlock, c)
	return err
}

// exec runs a statement with ShedLock's named parameters, as Spring's
// NamedParameterJdbcTemplate does, and reports whether it changed a row.
func (j *jdbc) exec(ctx context.Context, sql string, c lockConfig) (bool, error) {
	params := map[string]any{
		"name": c.name, "lockedBy": j.lockedBy,
		"lockAtMostForInterval":  float64(c.atMostFor.Milliseconds()) / 1000,
		"lockAtLeastForInterval": float64(c.atLeastFor.Milliseconds()) / 1000,
	}
	var args []any
	index := map[string]int{}
	text := named.ReplaceAllStringFunc(sql, func(m string) string {
		p := m[1:]
		if _, ok := index[p]; !ok {
			args = append(args, params[p])
			index[p] = len(args)
		}
		return "$" + strconv.Itoa(index[p])
	})
	tag, err := j.conn.Exec(ctx, text, args...)
	return tag.RowsAffected() > 0, err
}

var named = regexp.MustCompile(`:[a-zA-Z]+`)
