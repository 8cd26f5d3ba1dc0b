package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// defaultTimeout bounds connecting and each call unless --timeout says
// otherwise.
const defaultTimeout = 5 * time.Second

// connFlags are the connection flags every command takes. Each defaults to
// an environment variable (named in its usage) so that credentials need not
// appear on command lines.
type connFlags struct {
	redis, etcd, zookeeper string
	redlock                string // comma-separated Redis URLs, one per master
	postgres               string // a PostgreSQL connection URL
	pgTable, pgSchema      string
	mysql                  string // a MySQL DSN
	myTable, myDatabase    string
	etcdPrefix, zkBasePath string
	etcdUser, etcdPassword string
	zkDigest               string
	tlsCA, tlsCert, tlsKey string
	tlsInsecure            bool
	backend                string
	timeout                time.Duration
	json                   bool
	// readOnly is set by the commands that only read (inspect, watch):
	// the SQL backends then need only the right to inspect.
	readOnly bool

	envErr error // an environment variable that does not parse
}

// register defines the flags on fs, with their defaults from the
// environment.
func (c *connFlags) register(fs *flag.FlagSet) {
	str := func(p *string, name, env, usage string) {
		fs.StringVar(p, name, os.Getenv(env), usage+" (env "+env+")")
	}
	str(&c.redis, "redis", "LOCK4GO_REDIS", "Redis `host:port` or URL: redis://[user:password@]host:port[/db], rediss:// for TLS")
	str(&c.redlock, "redlock", "LOCK4GO_REDLOCK", "Redlock masters: comma-separated Redis `host:ports` or URLs, one per independent master")
	str(&c.etcd, "etcd", "LOCK4GO_ETCD", "etcd `endpoints`, comma-separated: host:port, http:// or https:// URLs")
	str(&c.zookeeper, "zookeeper", "LOCK4GO_ZOOKEEPER", "ZooKeeper `hosts`: host:port,host:port or zk://host:port,host:port")
	str(&c.postgres, "postgres", "LOCK4GO_POSTGRES", "PostgreSQL `user@host:port/db` (user and db optional: PGUSER, else the OS user) or URL: postgres://[user[:password]@]host:port/db[?sslmode=...]")
	str(&c.pgTable, "postgres-table", "LOCK4GO_POSTGRES_TABLE", "the PostgreSQL executor's table `prefix` (postgres.Options.Table; default lock4go)")
	str(&c.pgSchema, "postgres-schema", "LOCK4GO_POSTGRES_SCHEMA", "the PostgreSQL executor's `schema` (postgres.Options.Schema)")
	str(&c.mysql, "mysql", "LOCK4GO_MYSQL", "MySQL or MariaDB `user@host:port/db` or DSN: user:password@tcp(host:port)/db[?param=value]")
	str(&c.myTable, "mysql-table", "LOCK4GO_MYSQL_TABLE", "the MySQL executor's table `prefix` (mysql.Options.Table; default lock4go)")
	str(&c.myDatabase, "mysql-database", "LOCK4GO_MYSQL_DATABASE", "the MySQL executor's `database` (mysql.Options.Database; default the DSN's)")
	str(&c.etcdPrefix, "etcd-prefix", "LOCK4GO_ETCD_PREFIX", "the etcd executor's key `prefix` (etcd.Options.Prefix)")
	str(&c.zkBasePath, "zk-base-path", "LOCK4GO_ZK_BASE_PATH", "the ZooKeeper executor's base `path` (zookeeper.Options.BasePath; default /lock4go)")
	str(&c.etcdUser, "etcd-user", "LOCK4GO_ETCD_USER", "etcd `user`")
	str(&c.etcdPassword, "etcd-password", "LOCK4GO_ETCD_PASSWORD", "etcd `password`")
	str(&c.zkDigest, "zk-digest", "LOCK4GO_ZK_DIGEST", "ZooKeeper digest credentials `user:password`")
	str(&c.tlsCA, "tls-ca", "LOCK4GO_TLS_CA", "PEM `file` of the CA that signed the server's certificate (enables TLS)")
	str(&c.tlsCert, "tls-cert", "LOCK4GO_TLS_CERT", "PEM `file` of a client certificate (enables TLS)")
	str(&c.tlsKey, "tls-key", "LOCK4GO_TLS_KEY", "PEM `file` of the client certificate's key")
	str(&c.backend, "backend", "LOCK4GO_BACKEND", "which configured backend to use, when several are: redis, redlock, etcd, zookeeper, postgres or mysql")
	insecure, err := envBool("LOCK4GO_TLS_INSECURE_SKIP_VERIFY")
	c.envErr = err
	fs.BoolVar(&c.tlsInsecure, "tls-insecure-skip-verify", insecure, "do not verify the server's certificate (enables TLS; testing only) (env LOCK4GO_TLS_INSECURE_SKIP_VERIFY)")
	timeout, err := envDuration("LOCK4GO_TIMEOUT", defaultTimeout)
	if c.envErr == nil {
		c.envErr = err
	}
	fs.DurationVar(&c.timeout, "timeout", timeout, "bound on connecting and on each call (env LOCK4GO_TIMEOUT)")
	fs.BoolVar(&c.json, "json", false, "machine-readable output (JSON)")
}

// check validates the flags after parsing.
func (c *connFlags) check() error {
	if c.envErr != nil {
		return c.envErr
	}
	if c.timeout <= 0 {
		return usagef("--timeout %v: must be positive", c.timeout)
	}
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return usagef("--tls-cert and --tls-key go together")
	}
	if c.zkDigest != "" && !strings.Contains(c.zkDigest, ":") {
		return usagef("--zk-digest: want user:password")
	}
	return c.checkAddrs()
}

func envBool(name string) (bool, error) {
	v := os.Getenv(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, usagef("%s=%q: not a boolean", name, v)
	}
	return b, nil
}

func envDuration(name string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return def, usagef("%s=%q: not a duration", name, v)
	}
	return d, nil
}

// newFlagSet returns a flag set for command name whose usage text is usage
// followed by the flags.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("lock4go "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage, "\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprint(stderr, exitCodesUsage)
	}
	return fs
}

// parseArgs parses args with fs, accepting flags after positional
// arguments too ("release KEY --force"), and returns the positional ones.
// Everything after "--" is positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, errHelp
			}
			return nil, &usageError{msg: err.Error(), printed: true}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
