package keybuilder

import (
	"fmt"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/keyexpr"
)

// Escape returns s with '%', ':', '#', '{', '}', ASCII control characters and
// bytes that are not valid UTF-8 percent-encoded (upper-case hex). Escape is
// injective, and its result never contains ':', '#', braces or control
// characters.
func Escape(s string) string { return keyexpr.Escape(s) }

// Join builds a key of Lock4j's shape, <prefix>:<name>#<part1>:<part2>…, from
// a name and parts, escaping the name and every part, and hashing keys longer
// than [DefaultMaxKeyLen] as the builders do. An empty part is an error
// wrapping [executor.ErrInvalidKey]. Use it to lock by hand
// (tpl.Lock(ctx, key)) a key that middleware builds, or the other way round:
// the key of a prefix, name and parts is the same whoever builds it,
// whatever [WithMaxKeyLen] a builder has. Join caps no part's length: for
// parts within the builders' cap ([DefaultMaxPartLen]) it gives the key
// they give. A prefix and name too long for any hashed key (over 1024
// bytes with it) are an error wrapping executor.ErrInvalidConfig.
func Join(prefix, name string, parts ...string) (string, error) {
	for i, p := range parts {
		if p == "" {
			return "", fmt.Errorf("keybuilder: part %d is empty: %w", i, executor.ErrInvalidKey)
		}
	}
	return join(prefix, name, parts)
}

// join builds the key; parts are known to be non-empty.
func join(prefix, name string, parts []string) (string, error) {
	k, err := keyexpr.Join(prefix, name, parts)
	if err != nil {
		return "", fmt.Errorf("keybuilder: %w", err)
	}
	return k, nil
}

// checkName reports whether a fixed name leaves room for a hashed key.
func checkName(prefix, name string, maxLen int) error {
	if err := keyexpr.CheckName(prefix, name, maxLen); err != nil {
		return fmt.Errorf("keybuilder: %w", err)
	}
	return nil
}
