package lockspec

import (
	"context"
	"errors"

	"github.com/lock4go/lock4go"
)

// BuildKeys builds a request's keys with builders: the one key, or the
// keys of Each (then key is the first).
func BuildKeys[B any](builders []B, build func(b B) (string, error)) (key string, keys []string, err error) {
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

// Lock takes key, or all keys with LockAll when there are several. On
// failure it returns the key to report: the one that was not obtained.
func Lock(ctx context.Context, tpl *lock4go.Template, key string, keys []string, opts []lock4go.LockOption) (*lock4go.Lock, string, error) {
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
