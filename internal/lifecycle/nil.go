package lifecycle

import "reflect"

// IsNil reports whether v is nil or an interface holding a nil pointer,
// map, slice, channel or function: a typed nil such as
// (*redis.Client)(nil) passed as a redis.UniversalClient, which
// compares unequal to nil and panics on its first call.
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
