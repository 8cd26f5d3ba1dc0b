package reliability

import (
	"context"
	"database/sql"
	"strings"
)

// mysqlRows lists the rows of the default tables whose key contains ?
// (every row when it is ""), as "locks/<key>", "shares/<key>/<owner>",
// "waiters/<key>/<member>:<kind>", "voids/<owner>" and
// "wakes/<member>/<key>", with whether each is live (a writer, claim,
// share or queue entry that has not expired) and whether it holds nothing
// live (expired, a key's row free, a wake the executor did not take).
const mysqlRows = `
SELECT CONCAT('locks/', l.k), l.owner IS NOT NULL AND l.expires > @now,
	NOT (l.owner IS NOT NULL AND l.expires > @now)
	AND NOT EXISTS (SELECT 1 FROM lock4go_shares s WHERE s.k = l.k AND s.expires > @now)
	AND NOT EXISTS (SELECT 1 FROM lock4go_waiters w WHERE w.k = l.k AND w.expires > @now)
FROM lock4go_locks l WHERE LOCATE(@name, l.k) > 0
UNION ALL
SELECT CONCAT('shares/', k, '/', owner), expires > @now, expires <= @now
FROM lock4go_shares WHERE LOCATE(@name, k) > 0
UNION ALL
SELECT CONCAT('waiters/', k, '/', member, ':', kind), expires > @now, expires <= @now
FROM lock4go_waiters WHERE LOCATE(@name, k) > 0
UNION ALL
SELECT CONCAT('voids/', owner), FALSE, expires <= @now FROM lock4go_voids WHERE @name = ''
UNION ALL
SELECT CONCAT('wakes/', member, '/', k), FALSE, TRUE FROM lock4go_wakes WHERE LOCATE(@name, k) > 0`

// readMySQL fills inv with the rows of the keys containing name at addr.
func readMySQL(ctx context.Context, addr, name string, inv *inventory) error {
	return eachMySQLRow(ctx, addr, name, func(entry string, live, expired bool) {
		inv.Entries = append(inv.Entries, entry)
		if live {
			inv.LockNodes = append(inv.LockNodes, entry)
		}
		if expired {
			inv.Expired = append(inv.Expired, entry)
		}
	})
}

// eachMySQLRow calls fn for each row of mysqlRows, on one connection of
// its own (the query's user variables are its session's).
func eachMySQLRow(ctx context.Context, addr, name string, fn func(entry string, live, expired bool)) error {
	db, err := sql.Open("mysql", MySQLDSN(addr))
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET @name = ?, @now = TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))", name); err != nil {
		return err
	}
	rows, err := conn.QueryContext(ctx, mysqlRows)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			entry         string
			live, expired bool
		)
		if err := rows.Scan(&entry, &live, &expired); err != nil {
			return err
		}
		fn(entry, live, expired)
	}
	return rows.Err()
}

// mysqlResidue reports whether a MySQL row may stay after every lock was
// released: a void marker, which ends by itself (its time is checked
// apart), a wake no executor took (the sweep removes it after two claim
// windows), and the free row of a released key (the sweep removes it).
func mysqlResidue(n string) bool {
	return strings.HasPrefix(n, "voids/") || strings.HasPrefix(n, "wakes/") || strings.HasPrefix(n, "locks/")
}
