#!/usr/bin/env bash
# Starts (or stops) mnemo's project-local PostgreSQL cluster in .data/postgres
# on 127.0.0.1:54329, with the pgvector extension (scripts/pgvector.sh).
# Idempotent. Used by `make db`, `make run` and `make test`.
#
#   scripts/db.sh start|stop
#   scripts/db.sh hugepages   (make bench) reserve 2 MB pages for the server's
#                             shared memory where the kernel lets us, and
#                             restart the cluster in them; stop gives them back
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

# shared_buffers as PostgreSQL's tuning guide starts it on a dedicated
# server, a quarter of memory, here at most 4 GB: its default of 128 MB
# holds a small part of make bench's million memories, and every page read
# past it is a system call.
buffers=128
if [ -r /proc/meminfo ]; then
	buffers=$(awk '/^MemTotal:/ { mb = int($2 / 4096); if (mb > 4096) mb = 4096; if (mb < 128) mb = 128; print mb }' /proc/meminfo)
fi
settings="-c synchronous_commit=off -c max_connections=300 -c shared_buffers=${buffers}MB"

resolve_data() {
	[ -L "$data" ] && data=$(readlink "$data")
	return 0
}

running() {
	as_owner "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1
}

# The kB of huge pages the running server's processes map (0 when it runs
# in 4 kB pages).
server_huge_kb() {
	local pid
	pid=$(head -1 "$data/postmaster.pid" 2>/dev/null) || { echo 0; return; }
	awk '/^HugetlbPages:/ { print $2; found = 1 } END { if (!found) print 0 }' "/proc/$pid/status" 2>/dev/null || echo 0
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
	resolve_data
	if [ ! -f "$data/PG_VERSION" ]; then
		as_owner "$bindir/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
	fi
	# pgvector, for recall by meaning: installed before the cluster starts,
	# as the server's own packages are (a no-op once it is there).
	"$root/scripts/pgvector.sh" ensure "$bindir"
	if running; then
		exit 0
	fi
	# huge_pages=try (PostgreSQL's default, said here): the server maps its
	# shared memory in 2 MB pages when the kernel holds enough of them
	# (scripts/db.sh hugepages), else in 4 kB pages.
	as_owner "$bindir/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
		-o "-h 127.0.0.1 -p $port -k /tmp $settings -c huge_pages=try" start >/dev/null
	for _ in $(seq 1 60); do
		if "$bindir/pg_isready" -h 127.0.0.1 -p "$port" -q; then break; fi
		sleep 0.5
	done
	"$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='mnemo'" | grep -q 1 ||
		"$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -qc "CREATE DATABASE mnemo"
	;;
stop)
	resolve_data
	if [ -f "$data/PG_VERSION" ]; then
		as_owner "$bindir/pg_ctl" -D "$data" -m fast stop >/dev/null 2>&1 || true
	fi
	# The huge pages `hugepages` reserved go back to the kernel.
	if [ -f "$root/.data/hugepages" ]; then
		n=$(cat "$root/.data/hugepages")
		cur=$(cat /proc/sys/vm/nr_hugepages)
		echo $((cur > n ? cur - n : 0)) >/proc/sys/vm/nr_hugepages 2>/dev/null || true
		rm -f "$root/.data/hugepages"
	fi
	;;
hugepages)
	# Every PostgreSQL process maps shared_buffers into its own page table,
	# a page at a time, the first time it touches each page: in 4 kB pages a
	# recall over a million memories takes thousands of page faults on each
	# connection it runs on, which doubled its time inside serve (each turn
	# on one of several connections) against one connection reading
	# alone. 2 MB pages make that 512 times fewer (docs/scale.md, "Huge
	# pages"). Reserving them is the kernel's (vm.nr_hugepages, root only):
	# where that is refused, the cluster keeps 4 kB pages and says so.
	"$0" start
	resolve_data
	if [ "$(server_huge_kb)" -gt 0 ]; then
		echo "db: PostgreSQL already runs in huge pages"
		exit 0
	fi
	if [ ! -w /proc/sys/vm/nr_hugepages ]; then
		echo "db: can't reserve huge pages here (vm.nr_hugepages needs root); PostgreSQL keeps 4 kB pages" >&2
		exit 0
	fi
	as_owner "$bindir/pg_ctl" -D "$data" -m fast stop >/dev/null
	# (PostgreSQL 15 says how many it needs; an older server, about the
	# buffers and 128 MB more.)
	need=$(as_owner "$bindir/postgres" -D "$data" $settings -C shared_memory_size_in_huge_pages 2>/dev/null) ||
		need=$((buffers / 2 + 64))
	free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	cur=$(cat /proc/sys/vm/nr_hugepages)
	add=$((need > free ? need - free : 0))
	got=0
	if [ "$add" -gt 0 ]; then
		echo $((cur + add)) >/proc/sys/vm/nr_hugepages 2>/dev/null || true
		got=$(($(cat /proc/sys/vm/nr_hugepages) - cur))
	fi
	"$0" start
	if [ "$(server_huge_kb)" -gt 0 ]; then
		if [ "$got" -gt 0 ]; then echo $(($(cat "$root/.data/hugepages" 2>/dev/null || echo 0) + got)) >"$root/.data/hugepages"; fi
		echo "db: PostgreSQL runs in huge pages: $need pages of 2 MB (scripts/db.sh stop gives back the $(cat "$root/.data/hugepages" 2>/dev/null || echo 0) reserved here)"
	else
		# Too few to hold it all: the server took none, so none are kept.
		if [ "$got" -gt 0 ]; then echo "$cur" >/proc/sys/vm/nr_hugepages 2>/dev/null || true; fi
		echo "db: the kernel gave too few huge pages ($((free + got)) free, $need needed); PostgreSQL runs in 4 kB pages" >&2
	fi
	;;
*)
	echo "usage: $0 start|stop|hugepages" >&2
	exit 2
	;;
esac
