package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// variant is one way to take and release a key: a pair of scripts (or SET
// NX PX and a script) with their arguments, or a function.
type variant struct {
	name     string
	acq, rel *goredis.Script
	acqKeys  int
	acqArgs  func(owner string) []any
	relKeys  int
	relArgs  func(owner string, token int64) []any
	plainSet bool          // acquire with SET NX PX instead of acq
	pause    time.Duration // the client sleeps between acquire and release
	fn       func(ctx context.Context, key string) error
}

// pair takes and releases the variant's key once; k varies the owner.
func (v variant) pair(ctx context.Context, c *goredis.Client, k int) error {
	key := "scriptcost:" + v.name
	if v.fn != nil {
		return v.fn(ctx, key)
	}
	owner := "owner-" + strconv.Itoa(k%7) + "-0123456789abcdef0123456789"
	keys := []string{key, "{" + key + "}:shares", "{" + key + "}:queue", "{" + key + "}:void:"}
	var token int64
	if v.plainSet {
		if !c.SetNX(ctx, key, owner, 30*time.Second).Val() {
			return errors.New("busy")
		}
	} else {
		t, err := v.acq.Run(ctx, c, keys[:v.acqKeys], v.acqArgs(owner)...).Result()
		if err != nil && !errors.Is(err, goredis.Nil) {
			return err
		}
		token, _ = t.(int64)
	}
	time.Sleep(v.pause)
	n, err := v.rel.Run(ctx, c, keys[:v.relKeys], v.relArgs(owner, token)...).Int()
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("release returned %d", n)
	}
	return nil
}

// The floor's and bsm/redislock's scripts (bsm/redislock v0.9.4's obtain
// and release).
var (
	rawRelease = goredis.NewScript(`if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`)
	bsmObtain  = goredis.NewScript(`
if redis.call("set", KEYS[1], ARGV[1], "NX", "PX", ARGV[3]) then return redis.status_reply("OK") end

local offset = tonumber(ARGV[2])
if redis.call("getrange", KEYS[1], 0, offset-1) == string.sub(ARGV[1], 1, offset) then return redis.call("set", KEYS[1], ARGV[1], "PX", ARGV[3]) end
`)
	bsmRelease = goredis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`)
)

// scriptVariants returns the floor, bsm/redislock (also with the client
// pausing 50 µs between acquire and release: the server's CPU per pair
// depends on how long it idles between calls) and lock4go's scripts of dir
// and of each of extra.
func scriptVariants(dir string, extra []string) []variant {
	one := func(o string, _ int64) []any { return []any{o} }
	bsm := variant{name: "redislock", acq: bsmObtain, acqKeys: 1, acqArgs: func(o string) []any { return []any{o, 16, 30000} }, rel: bsmRelease, relKeys: 1, relArgs: one}
	paced := bsm
	paced.name, paced.pause = "redislock-paced", 50*time.Microsecond
	vs := []variant{{name: "raw", plainSet: true, rel: rawRelease, relKeys: 1, relArgs: one}, bsm, paced}
	acq, rel := loadScripts(dir)
	vs = append(vs, lock4goScripts("scripts", acq, rel, 4))
	vs = append(vs, lock4goScripts("scripts-plain", acq, rel, 2))
	noClock := strings.Replace(acq, "local t = redis.call('time')", "local t = {'1700000000', '123456'}", 1)
	vs = append(vs, lock4goScripts("scripts-no-time", noClock, rel, 2))
	for _, d := range extra {
		if d != "" {
			a, r := loadScripts(d)
			vs = append(vs, lock4goScripts(filepath.Base(d), a, r, 4))
		}
	}
	return vs
}

// lock4goScripts is a variant of lock4go's acquire and release scripts:
// with 4 keys, the arguments of a Template's attempt (a waiting request,
// not queued); with 2, a plain attempt's.
func lock4goScripts(name, acq, rel string, keys int) variant {
	args := func(o string) []any { return []any{o, 30000} }
	if keys == 4 {
		args = func(o string) []any { return []any{o, 30000, "0123456789abcdef", 30000, "0", 200, ""} }
	}
	return variant{name: name, acq: goredis.NewScript(acq), acqKeys: keys, acqArgs: args, rel: goredis.NewScript(rel), relKeys: 3,
		relArgs: func(o string, token int64) []any { return []any{o, 200, o + "\x00" + strconv.FormatInt(token, 10)} }}
}

// loadScripts returns acquire.lua and release.lua of dir with lib.lua in
// place, as the executor loads them.
func loadScripts(dir string) (acq, rel string) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			log.Fatal(err)
		}
		return string(b)
	}
	lib := read("lib.lua")
	with := func(s string) string { return strings.Replace(s, "-- {{lib}}\n", lib, 1) }
	return with(read("acquire.lua")), with(read("release.lua"))
}
