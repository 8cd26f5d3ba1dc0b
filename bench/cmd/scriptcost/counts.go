package main

import (
	"context"
	"strconv"
	"strings"

	goredis "github.com/redis/go-redis/v9"
)

// counts returns the server's CPU seconds (used_cpu_sys + used_cpu_user)
// and the µs it spent in scripts (the usec of cmdstat_evalsha and
// cmdstat_eval, which hold the time of the commands the scripts call).
func counts(ctx context.Context, c *goredis.Client) (cpu float64, usec int64, err error) {
	info, err := c.Info(ctx, "commandstats", "cpu").Result()
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "cmdstat_"); ok {
			name, stats, _ := strings.Cut(rest, ":")
			if name == "evalsha" || name == "eval" {
				usec += statField(stats, "usec=")
			}
		}
		for _, k := range []string{"used_cpu_sys:", "used_cpu_user:"} {
			if v, ok := strings.CutPrefix(line, k); ok {
				f, _ := strconv.ParseFloat(v, 64)
				cpu += f
			}
		}
	}
	return cpu, usec, nil
}

// statField returns the field named prefix of a commandstats line.
func statField(stats, prefix string) int64 {
	for _, f := range strings.Split(stats, ",") {
		if v, ok := strings.CutPrefix(f, prefix); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}
