package middleware

import (
	"context"
	"errors"
	"slices"

	"github.com/lock4go/lock4go"
)

// keyExprs returns the expressions of each key a Spec locks: Keys alone, or
// for each expression of Each, Keys followed by it.
func (s *Spec) keyExprs() [][]string {
	if len(s.Each) == 0 {
		return [][]string{s.Keys}
	}
	all := make([][]string, len(s.Each))
	for i, e := range s.Each {
		all[i] = append(slices.Clip(s.Keys), e)
	}
	return all
}

// keyBuilder is a key builder of one request kind, applied to one request.
type keyBuilder[B any] func(b B) (string, error)

// buildKeys builds a request's keys with builders: the one key, or the keys
// of Each (then key is the first).
func buildKeys[B any](builders []B, build keyBuilder[B]) (key string, keys []string, err error) {
	if len(builders) == 1 {
		key, err = build(builders[0])
		return key, nil, err
	}
	keys = make([]string, len(builders))
	for i, b := range builders {
		if keys[i], err = build(b); err != nil {
			return "", nil, err
		}
	}
	return keys[0], keys, nil
}

// lockKeys takes key, or all keys with LockAll when there are several. On
// failure it returns the key to report: the one that was not obtained.
func lockKeys(ctx context.Context, tpl *lock4go.Template, key string, keys []string, opts []lock4go.LockOption) (*lock4go.Lock, string, error) {
	if keys == nil {
		l, err := tpl.Lock(ctx, key, opts...)
		return l, key, err
	}
	l, err := tpl.LockAll(ctx, keys, opts...)
	var aerr *lock4go.AcquireError
	if errors.As(err, &aerr) {
		key = aerr.Key
	}
	return l, key, err
}
