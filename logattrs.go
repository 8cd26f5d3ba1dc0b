package lock4go

import "log/slog"

const (
	levelWarn  = slog.LevelWarn
	levelError = slog.LevelError
)

func attrKey(k string) slog.Attr  { return slog.String("key", k) }
func attrExec(e string) slog.Attr { return slog.String("executor", e) }
func attrErr(err error) slog.Attr { return slog.String("error", err.Error()) }
