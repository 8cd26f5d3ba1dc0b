package doccheck

// imports maps the package names a block may use without importing them
// to their import paths: the standard library's common packages, this
// module's, and the clients and peer libraries the docs show.
var imports = map[string]string{
	"bytes":    "bytes",
	"context":  "context",
	"errors":   "errors",
	"fmt":      "fmt",
	"io":       "io",
	"log":      "log",
	"os":       "os",
	"slog":     "log/slog",
	"strings":  "strings",
	"strconv":  "strconv",
	"sync":     "sync",
	"time":     "time",
	"json":     "encoding/json",
	"http":     "net/http",
	"net":      "net",
	"tls":      "crypto/tls",
	"x509":     "crypto/x509",
	"signal":   "os/signal",
	"syscall":  "syscall",
	"httptest": "net/http/httptest",

	"lock4go":    "github.com/lock4go/lock4go",
	"executor":   "github.com/lock4go/lock4go/executor",
	"redis":      "github.com/lock4go/lock4go/executors/redis",
	"redlock":    "github.com/lock4go/lock4go/executors/redlock",
	"etcd":       "github.com/lock4go/lock4go/executors/etcd",
	"zookeeper":  "github.com/lock4go/lock4go/executors/zookeeper",
	"postgres":   "github.com/lock4go/lock4go/executors/postgres",
	"memory":     "github.com/lock4go/lock4go/executors/memory",
	"middleware": "github.com/lock4go/lock4go/middleware",
	"jobs":       "github.com/lock4go/lock4go/jobs",
	"keybuilder": "github.com/lock4go/lock4go/keybuilder",
	"failure":    "github.com/lock4go/lock4go/failure",
	"lockdebug":  "github.com/lock4go/lock4go/lockdebug",
	"grpclock":   "github.com/lock4go/lock4go/grpclock",

	"goredis":     "github.com/redis/go-redis/v9",
	"logging":     "github.com/redis/go-redis/v9/logging",
	"clientv3":    "go.etcd.io/etcd/client/v3",
	"concurrency": "go.etcd.io/etcd/client/v3/concurrency",
	"zk":          "github.com/go-zookeeper/zk",
	"pgxpool":     "github.com/jackc/pgx/v5/pgxpool",
	"grpc":        "google.golang.org/grpc",
	"redislock":   "github.com/bsm/redislock",
	"redsync":     "github.com/go-redsync/redsync/v4",
}

// given is a name a block may use without declaring it: a package-level
// variable of type typ, which needs the packages pkgs.
type given struct {
	typ  string
	pkgs []string
}

// givens are the names blocks use for what a reader's program has
// already: a context, a Template, clients, a mux, handlers.
var givens = map[string]given{
	"ctx":        {"context.Context", []string{"context"}},
	"tpl":        {"*lock4go.Template", []string{"lock4go"}},
	"exec":       {"executor.Executor", []string{"executor"}},
	"mux":        {"*http.ServeMux", []string{"http"}},
	"payHandler": {"http.Handler", []string{"http"}},
	"spec":       {"middleware.Spec", []string{"middleware"}},
	"rc":         {"*goredis.Client", []string{"goredis"}},
	"c1":         {"*goredis.Client", []string{"goredis"}},
	"c2":         {"*goredis.Client", []string{"goredis"}},
	"c3":         {"*goredis.Client", []string{"goredis"}},
	"conn":       {"*zk.Conn", []string{"zk"}},
	"etcdClient": {"*clientv3.Client", []string{"clientv3"}},
	"cli":        {"*clientv3.Client", []string{"clientv3"}},
	"addr":       {"string", nil},
	"password":   {"string", nil},
	"caPEM":      {"[]byte", nil},
	"tlsConfig":  {"*tls.Config", []string{"tls"}},

	"runScheduler": {"func(context.Context) error", []string{"context"}},
	"runner":       {"*jobs.Runner", []string{"jobs"}},
	"orderKey":     {"func(string) (string, error)", nil},
	"chargeOrder":  {"func(context.Context, string) (string, error)", []string{"context"}},
}
