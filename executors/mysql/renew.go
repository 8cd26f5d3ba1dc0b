package mysql

import (
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
)

// renewBatch bounds the leases one renew statement carries: a statement
// stays well under max_allowed_packet (16 MiB on MariaDB, 64 MiB on
// MySQL 8) with 1024-byte keys.
const renewBatch = 500

// RenewBatch renews every item with one statement per 500 and returns one
// error per item, in order: nil, an error wrapping
// [executor.ErrLockNotHeld] when the lease is no longer held by its owner
// (or had expired), or one wrapping [executor.ErrBackend]. Leases of
// other executors are renewed one by one through their own Renew. A
// statement takes its rows in key order, so that two batches never wait
// for each other's rows in opposite orders.
func (e *Executor) RenewBatch(ctx context.Context, items []executor.RenewItem) []error {
	errs, idx, own := e.core.Renewals(ctx, items, e.mine)
	order := make([]int, len(own))
	for j := range order {
		order[j] = j
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(own[a].Key(), own[b].Key()) })
	for len(order) > 0 {
		part := order[:min(len(order), renewBatch)]
		order = order[len(part):]
		renewed, err := e.renew(ctx, part, func(j int) (*lease, int64) { return own[j], leases.Millis(items[idx[j]].TTL) })
		for _, j := range part {
			i, l := idx[j], own[j]
			switch {
			case err != nil:
				errs[i] = e.failed(ctx, "renew", l.Key(), err)
			case !renewed[j]:
				errs[i] = e.core.Settle(l, fmt.Errorf("mysql: renew %q: %w", l.Key(), executor.ErrLockNotHeld))
			}
		}
	}
	return errs
}

// mine returns l as a lease of e, and reports whether it is one.
func (e *Executor) mine(l executor.Lease) (*lease, bool) {
	ml, ok := l.(*lease)
	return ml, ok && ml.e == e
}

// renew runs the renew statement for the leases part names (by index, as
// item gives them with their TTL in ms) and reports which indexes it
// renewed.
func (e *Executor) renew(ctx context.Context, part []int, item func(j int) (*lease, int64)) (map[int]bool, error) {
	var b strings.Builder
	b.WriteByte('[')
	for n, j := range part {
		l, ttl := item(j)
		if n > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `[%d,"%s","%s",%s]`, j, hex.EncodeToString([]byte(l.Key())), hex.EncodeToString([]byte(l.Owner())), strconv.FormatInt(ttl, 10))
	}
	b.WriteByte(']')
	ctx, cancel := e.core.CallContext(ctx)
	defer cancel()
	rows, err := e.db.QueryContext(ctx, e.sql.call("renew", jsonArg(b.String())))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	renewed := make(map[int]bool, len(part))
	for rows.Next() {
		var j int
		if err := rows.Scan(&j); err != nil {
			return nil, err
		}
		renewed[j] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return renewed, rows.Close()
}
