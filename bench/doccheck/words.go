package doccheck

// generalWords are the words of identifiers that the glossary leaves out:
// Go's own (keywords, builtins, the standard library's names), those of
// programming in general and of English, abbreviations of local names,
// one-letter names, and the names of packages (each has its own doc).
var generalWords = map[string]bool{}

func init() {
	for _, w := range []string{
		"me", "number", "version", "builder", "compile", "active", "params", "degraded",
		"err", "error", "errors", "nil", "ctx", "context", "fmt", "errorf", "string", "strings", "int", "bool",
		"byte", "bytes", "any", "len", "cap", "append", "make", "new", "true", "false", "func", "return", "time",
		"duration", "now", "since", "until", "after", "sync", "mutex", "lock", "unlock", "atomic", "load", "store",
		"add", "sprintf", "slog", "logger", "log", "debug", "warn", "info", "is", "as", "ok", "go", "select",
		"chan", "close", "closed", "done", "cancel", "struct", "interface", "map", "type", "var", "const", "range",
		"copy", "delete", "min", "max", "unwrap", "wrap", "join", "cut", "prefix", "suffix", "has", "index",
		"contains", "trim", "split", "sort", "slices", "maps", "rand", "hex", "base", "json", "http", "request",
		"response", "writer", "header", "url", "path", "method", "body", "grpc", "status", "code", "codes",
		"metadata", "md", "proto", "net", "addr", "ip", "io", "read", "write", "reader", "buf", "buffer", "bufio",
		"os", "exit", "flag", "flags", "int64", "uint64", "int32", "float64", "uint8", "uint32", "rune", "runes",
		"utf8", "unicode", "valid", "strconv", "itoa", "atoi", "parse", "format", "value", "values", "name",
		"names", "key", "keys", "val", "v", "s", "b", "n", "i", "j", "k", "t", "w", "r", "p", "c", "e", "l", "x",
		"f", "m", "q", "d", "h", "g", "id", "ids", "set", "get", "put", "run", "runs", "start", "stop", "timer",
		"timers", "reset", "wait", "waits", "group", "wg", "once", "do", "test", "tests", "the", "of", "to", "in",
		"on", "a", "an", "and", "or", "by", "for", "with", "from", "at", "it", "its", "not", "no", "all", "one",
		"each", "first", "last", "next", "prev", "old", "cur", "count", "total", "list", "item", "items", "entry",
		"entries", "node", "nodes", "opts", "options", "option", "config", "cfg", "default", "defaults", "args",
		"arg", "result", "results", "res", "out", "src", "dst", "client", "server", "conn", "conns", "connection",
		"pool", "query", "exec", "row", "rows", "scan", "sql", "tx", "db", "table", "schema", "ttl", "ms",
		"timeout", "deadline", "interval", "retry", "retries", "backoff", "cause", "kind", "kinds", "state",
		"stats", "stat", "size", "data", "msg", "message", "text", "str", "num", "up", "down", "off", "nop",
		"noop", "fn", "fns", "cb", "handler", "handle", "handlers", "call", "calls", "caller", "callers", "ch",
		"sub", "pub", "cmd", "cmds", "pipe", "pipeliner", "pipelined", "script", "scripts", "eval", "sha", "lua",
		"redis", "goredis", "zk", "etcd", "clientv", "clientv3", "pgx", "pgconn", "pgxpool", "pg", "postgres",
		"mysql", "zookeeper", "memory", "redlock", "executor", "executors", "template", "locks", "locked", "lease",
		"leases", "owner", "owners", "token", "tokens", "mu", "wire", "span", "spans", "otel", "metric", "metrics",
		"attr", "attrs", "attribute", "attributes", "trace", "tracer", "meter", "unit", "event", "events", "expr",
		"exprs", "seg", "segs", "part", "parts", "field", "fields", "level", "depth", "pos", "end", "ends",
		"begin", "tok", "dec", "must", "want", "got", "check", "checks", "checked", "ensure", "init", "mk", "sum",
		"hash", "avg", "ns", "us", "sec", "encode", "decode", "marshal", "unmarshal", "escape", "unescape",
		"quote", "quoted", "ascii", "upper", "lower", "fold", "eq", "equal", "then", "else", "if", "when", "be",
		"was", "are", "this", "that", "other", "others", "own", "only", "more", "less", "than", "per", "ts",
		"clock", "monotonic", "wall", "unix", "nano", "millis", "seconds", "second", "minute", "hour", "day",
		"rate", "lose", "ready", "running", "started", "stopped", "closing", "open", "opened", "fail", "failed", "failure",
		"failures", "success", "succeeded", "uid", "uuid", "idx", "cnt", "bad", "good", "fast", "slow", "safe",
		"unsafe", "raw", "real", "fake", "dial", "dialer", "listen", "listener", "accept", "tls", "cert", "certs",
		"auth", "user", "pass", "password", "role", "roles", "req", "gs", "errs", "ref", "refs", "op", "st", "en", "hs",
		"opt", "resp", "uint", "tpl", "ls", "kw", "fp", "nl", "cmp", "kv", "kvs", "cerr", "wd", "dir", "bg", "ps",
		"ks", "rt", "sess", "utf", "ws", "reg", "fd", "ev", "lk", "subs", "conv", "lf", "ctxs", "mw", "cli", "srv",
		"ln", "sc", "tc", "kit", "keyexpr", "lifecycle", "leases", "keybuilder", "protoreflect", "jdbc", "lockdebug", "shedlock", "gocron", "cron",
		"otelobserver", "lockspec", "mwtest", "testserver", "invalid", "take", "free", "parent", "float", "reflect", "keep",
		"sent", "create", "form", "millisecond", "gone", "most", "remove", "heap", "left", "least", "compare",
		"full", "rest", "zero", "mark", "view", "stack", "drop", "page", "before", "created", "ran", "self",
		"link", "long", "seen", "finish", "try", "ended", "provider", "words", "used", "mutexes",
	} {
		generalWords[w] = true
	}
}
