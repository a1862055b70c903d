#!/usr/bin/env bash
# Starts (or stops) mnemo's project-local PostgreSQL cluster in .data/postgres
# on 127.0.0.1:54329, with the pgvector extension (scripts/pgvector.sh).
# Idempotent. Used by `make db`, `make run` and `make test`.
set -euo pipefail

cmd=${1:-start}
root=$(cd "$(dirname "$0")/.." && pwd)
data="$root/.data/postgres"
port=${MNEMO_PG_PORT:-54329}

find_bindir() {
	if command -v pg_config >/dev/null 2>&1; then
		local d
		d=$(pg_config --bindir)
		if [ -x "$d/initdb" ]; then echo "$d"; return; fi
	fi
	local best=""
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && best="$d"
	done
	[ -n "$best" ] && echo "$best"
}

bindir=$(find_bindir || true)
if [ -z "$bindir" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "db: PostgreSQL server binaries not found; installing postgresql and postgresql-contrib with apt-get" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >&2
		apt-get install -y -qq postgresql postgresql-contrib >&2
		bindir=$(find_bindir || true)
	fi
fi
if [ -z "$bindir" ]; then
	echo "db: PostgreSQL server binaries not found. Install the Debian package 'postgresql' (and 'postgresql-contrib'), or set DATABASE_URL to an existing server." >&2
	exit 1
fi

# initdb and postgres refuse to run as root, so root runs them as postgres.
as_owner() {
	if [ "$(id -u)" = 0 ]; then
		su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
	else
		"$@"
	fi
}

case "$cmd" in
start)
	mkdir -p "$root/.data"
	if [ "$(id -u)" = 0 ]; then
		id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/sh postgres
		chown postgres "$root/.data"
		# The server runs as postgres, which may not be able to reach a checkout
		# under a private home; keep the cluster elsewhere and link it in then.
		if ! su postgres -s /bin/sh -c "test -x '$root/.data'" 2>/dev/null && [ ! -e "$data" ]; then
			alt="/var/tmp/mnemo-pg-$(echo "$root" | md5sum | cut -c1-12)"
			mkdir -p "$alt" && chown postgres "$alt"
			ln -s "$alt" "$data"
		fi
	fi
	[ -L "$data" ] && data=$(readlink "$data")
	if [ ! -f "$data/PG_VERSION" ]; then
		as_owner "$bindir/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
	fi
	# pgvector, for recall by meaning: installed before the cluster starts,
	# as the server's own packages are (a no-op once it is there).
	"$root/scripts/pgvector.sh" ensure "$bindir"
	if as_owner "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
		exit 0
	fi
	# shared_buffers as PostgreSQL's tuning guide starts it on a dedicated
	# server, a quarter of memory, here at most 4 GB: its default of 128 MB
	# holds a small part of make bench's million memories, and every page
	# read past it is a system call.
	buffers=128
	if [ -r /proc/meminfo ]; then
		buffers=$(awk '/^MemTotal:/ { mb = int($2 / 4096); if (mb > 4096) mb = 4096; if (mb < 128) mb = 128; print mb }' /proc/meminfo)
	fi
	as_owner "$bindir/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
		-o "-h 127.0.0.1 -p $port -k /tmp -c synchronous_commit=off -c max_connections=300 -c shared_buffers=${buffers}MB" start >/dev/null
	for _ in $(seq 1 60); do
		if "$bindir/pg_isready" -h 127.0.0.1 -p "$port" -q; then break; fi
		sleep 0.5
	done
	"$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='mnemo'" | grep -q 1 ||
		"$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -qc "CREATE DATABASE mnemo"
	;;
stop)
	[ -L "$data" ] && data=$(readlink "$data")
	if [ -f "$data/PG_VERSION" ]; then
		as_owner "$bindir/pg_ctl" -D "$data" -m fast stop >/dev/null 2>&1 || true
	fi
	;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac
