package redis

import (
	"embed"
	"strings"

	goredis "github.com/redis/go-redis/v9"
)

// The Lua scripts live in lua/*.lua, each opening with its KEYS and ARGV
// named as locals. Each touches only keys of one Cluster slot (the lock key
// and names derived from it: see derive). go-redis runs them with EVALSHA
// and falls back to EVAL when the server does not know the digest (see
// runScript); the voids are pipelined with EVAL. A lock key of another type
// (Redisson's hash lock) makes GET fail with WRONGTYPE; the scripts read it
// with redis.pcall, so it counts as held by another owner instead of
// failing the call. docs/redis.md describes the protocol.
//
//go:embed lua/*.lua
var luaFiles embed.FS

// Codes the acquire scripts return instead of a token.
const (
	// tokenMissing: a retried share acquisition found its own owner among
	// the shares, whose tokens are not kept.
	tokenMissing = -1
	// The others are the codes of every queued executor:
	// queued.CodeVoided (-2), queued.CodeQueued (-3) and
	// queued.CodeKindMismatch (-4).
)

// requeued: the release script granted the key to another executor and
// queued this one again for its followers.
const requeued = 2

// The scripts, see lua/*.lua.
var (
	acquireScript      = loadScript("acquire.lua")
	releaseScript      = loadScript("release.lua")
	voidScript         = loadScript("void.lua")
	renewScript        = loadScript("renew.lua")
	leaveScript        = loadScript("leave.lua")
	raiseScript        = loadScript("raise.lua")
	shareAcquireScript = loadScript("share_acquire.lua")
	shareReleaseScript = loadScript("share_release.lua")
	shareRenewScript   = loadScript("share_renew.lua")
	shareVoidScript    = loadScript("share_void.lua")
)

// luaScript is one script of lua/*.lua, with lua/lib.lua in its place: its
// source and digest, which the calls built in place point to (see
// [newCall]), and its go-redis script, for pipelines.
type luaScript struct {
	src, sha string
	gs       *goredis.Script
}

// libMark is where a script takes the shared functions of lua/lib.lua.
const libMark = "-- {{lib}}\n"

// loadScript returns the script of lua/name with lua/lib.lua in place of
// its libMark. The files are part of the binary; a missing one is a bug
// caught by every test.
func loadScript(name string) *luaScript {
	src, err := luaFiles.ReadFile("lua/" + name)
	if err != nil {
		panic(err)
	}
	lib, err := luaFiles.ReadFile("lua/lib.lua")
	if err != nil {
		panic(err)
	}
	if !strings.Contains(string(src), libMark) {
		panic("redis: " + name + " has no " + strings.TrimSpace(libMark))
	}
	full := strings.Replace(string(src), libMark, string(lib), 1)
	gs := goredis.NewScript(full)
	return &luaScript{src: full, sha: gs.Hash(), gs: gs}
}
