package shedlock

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Pgx adapts a pgx pool to [DB].
func Pgx(pool *pgxpool.Pool) DB { return pgxDB{pool} }

type pgxDB struct{ pool *pgxpool.Pool }

func (p pgxDB) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := p.pool.Exec(ctx, sql, args...)
	return tag.RowsAffected(), err
}

func (p pgxDB) QueryRow(ctx context.Context, sql string, args []any, dest ...any) error {
	return p.pool.QueryRow(ctx, sql, args...).Scan(dest...)
}

func (p pgxDB) NoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
