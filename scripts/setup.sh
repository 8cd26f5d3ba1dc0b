#!/usr/bin/env bash
# Installs the servers the tests start for real (redis-server, redis-cli,
# redis-sentinel, ZooKeeper, etcd, etcdctl, a Java runtime, PostgreSQL,
# PgBouncer and MariaDB), libfaketime (clock tests), Apache
# Curator and a JDK (the ZooKeeper interop tests compile and run a Java
# Curator client), and the
# headless browser of the /debug/locks test (chromium) from Debian packages
# when any is missing. Idempotent: exits at once when everything is there.
# Runs apt-get as root, or through sudo otherwise.
set -euo pipefail

zk_jar=/usr/share/java/zookeeper.jar
curator_jar=/usr/share/java/curator-recipes.jar

have_all() {
	command -v redis-server >/dev/null 2>&1 &&
		command -v redis-cli >/dev/null 2>&1 &&
		command -v redis-sentinel >/dev/null 2>&1 &&
		command -v etcd >/dev/null 2>&1 &&
		command -v etcdctl >/dev/null 2>&1 &&
		command -v java >/dev/null 2>&1 &&
		command -v javac >/dev/null 2>&1 &&
		command -v chromium >/dev/null 2>&1 &&
		command -v pgbouncer >/dev/null 2>&1 &&
		compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null &&
		command -v mariadbd >/dev/null 2>&1 &&
		command -v mariadb-install-db >/dev/null 2>&1 &&
		command -v faketime >/dev/null 2>&1 &&
		[ -f "$zk_jar" ] &&
		[ -f "$curator_jar" ]
}

if have_all; then
	exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
	echo "setup.sh: apt-get not found; install redis-server, redis-tools, redis-sentinel, zookeeper, etcd-server, etcd-client, postgresql, pgbouncer, mariadb-server, faketime, chromium, libcurator-recipes-java and a JDK by hand" >&2
	exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "setup.sh: not root and sudo not found; run as root" >&2
		exit 1
	fi
	sudo=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive

# The tests start their own servers on free ports; keep the packages' system
# services from starting during the install (the Debian policy-rc.d hook,
# honoured by invoke-rc.d and deb-systemd-invoke). Only a hook we create is
# removed afterwards.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
	"${sudo[@]}" chmod 755 "$policy"
	trap '"${sudo[@]}" rm -f "$policy"' EXIT
fi

# postgresql brings the server, initdb, pg_stat_statements and the user
# "postgres" the tests run it as when they run as root (it refuses root);
# PgBouncer runs as that user too.
# mariadb-server brings mariadbd, mariadb-install-db and the user "mysql"
# the tests run it as when they run as root; faketime brings libfaketime.
packages=(redis-server redis-tools redis-sentinel zookeeper etcd-server etcd-client postgresql pgbouncer mariadb-server faketime chromium libcurator-recipes-java)
if ! command -v javac >/dev/null 2>&1; then
	packages+=(default-jdk-headless)
fi

echo "setup.sh: installing ${packages[*]}" >&2
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"

if ! have_all; then
	echo "setup.sh: still missing a server after install (need redis-server, redis-cli, redis-sentinel, etcd, etcdctl, java, chromium, pgbouncer, PostgreSQL's initdb, mariadbd, faketime, $zk_jar)" >&2
	exit 1
fi
echo "setup.sh: servers installed" >&2
