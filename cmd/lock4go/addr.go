package main

import (
	"fmt"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	goredis "github.com/redis/go-redis/v9"
)

// Every backend flag takes host:port as well as a URL.

// redisURL returns the Redis URL of a --redis or --redlock item: a URL
// (redis://, rediss://, unix://) as it is, host:port (or a host, for the
// default port) as redis://host:port.
func redisURL(s string) string {
	if strings.Contains(s, "://") {
		return s
	}
	return "redis://" + s
}

// etcdEndpoints returns the endpoints of --etcd: host:port or a URL
// (http://, https://, unix://, unixs://) each, comma-separated.
func etcdEndpoints(s string) ([]string, error) {
	eps := splitList(s)
	if len(eps) == 0 {
		return nil, usagef("--etcd %q: no endpoint", s)
	}
	for _, ep := range eps {
		scheme, rest, ok := strings.Cut(ep, "://")
		switch {
		case !ok:
			if err := hostPort(ep); err != nil {
				return nil, usagef("--etcd %q: %v", ep, err)
			}
		case scheme != "http" && scheme != "https" && scheme != "unix" && scheme != "unixs":
			return nil, usagef("--etcd %q: want host:port or an http://, https://, unix:// or unixs:// URL", ep)
		case rest == "":
			return nil, usagef("--etcd %q: no host", ep)
		}
	}
	return eps, nil
}

// zkHosts returns the hosts of --zookeeper: host:port,host:port or the
// same as a URL, zk://host:port,host:port (zookeeper:// too). A host
// without a port gets ZooKeeper's 2181.
func zkHosts(s string) ([]string, error) {
	rest := s
	if scheme, r, ok := strings.Cut(s, "://"); ok {
		if scheme != "zk" && scheme != "zookeeper" {
			return nil, usagef("--zookeeper %q: want host:port,... or zk://host:port,...", s)
		}
		rest = strings.TrimSuffix(r, "/")
	}
	hosts := splitList(rest)
	if len(hosts) == 0 {
		return nil, usagef("--zookeeper %q: no host", s)
	}
	for _, h := range hosts {
		if strings.Contains(h, "/") {
			return nil, usagef("--zookeeper %q: a path (chroot) is not supported; use --zk-base-path", s)
		}
		if err := hostPort(h); err != nil {
			return nil, usagef("--zookeeper %q: %v", h, err)
		}
	}
	return hosts, nil
}

// hostPort checks host[:port].
func hostPort(s string) error {
	if !strings.Contains(s, ":") || strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		return nil // a host alone: the default port
	}
	if _, _, err := net.SplitHostPort(s); err != nil {
		return fmt.Errorf("want host:port: %w", err)
	}
	return nil
}

// checkAddrs checks every backend flag given, so that a mistake is a usage
// error before anything is printed or dialled.
func (c *connFlags) checkAddrs() error {
	if c.redis != "" {
		if _, err := goredis.ParseURL(redisURL(c.redis)); err != nil {
			return usagef("--redis %q: %v", c.redis, err)
		}
	}
	for _, u := range splitList(c.redlock) {
		if _, err := goredis.ParseURL(redisURL(u)); err != nil {
			return usagef("--redlock %q: %v", u, err)
		}
	}
	if c.etcd != "" {
		if _, err := etcdEndpoints(c.etcd); err != nil {
			return err
		}
	}
	if c.zookeeper != "" {
		if _, err := zkHosts(c.zookeeper); err != nil {
			return err
		}
	}
	if c.postgres != "" {
		if _, err := pgxpool.ParseConfig(postgresURL(c.postgres)); err != nil {
			return usagef("--postgres: %v", err)
		}
	}
	if c.mysql != "" {
		if _, err := mysqlConfig(c.mysql); err != nil {
			return err
		}
	}
	return nil
}
