package jobs

import "log/slog"

const slogWarn = slog.LevelWarn

func attrJob(name string) slog.Attr { return slog.String("job", name) }
func attrErr(err error) slog.Attr   { return slog.String("error", err.Error()) }
