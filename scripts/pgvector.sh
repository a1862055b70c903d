#!/usr/bin/env bash
# Provides PostgreSQL's `vector` extension (pgvector) for the server in
# BINDIR, as scripts/db.sh provides the server: called by it before the
# cluster starts, so `make db`, `make run` and `make test` get recall by
# meaning with no manual step. Idempotent: nothing is done when the
# extension's control file is already installed.
#
#   scripts/pgvector.sh ensure BINDIR      install it for the server in BINDIR
#   scripts/pgvector.sh build BINDIR DEST  build it from Debian's source into
#                                          DEST (a staging root; installs nothing)
#
# Where Debian has a package for the server's major version
# (postgresql-NN-pgvector), it is installed. Debian bookworm has none: the
# extension is then built from the source of Debian trixie's `pgvector`
# source package, fetched through a temporary deb-src list (nothing is added
# to the system's apt sources), against postgresql-server-dev-NN at the
# installed server's exact version, so apt never upgrades the server under a
# cluster. Without root or apt-get it says what to install and exits 0: mnemo
# runs without pgvector, with lexical recall.
set -euo pipefail

cmd=${1:-}
bindir=${2:-}
if [ -z "$cmd" ] || [ -z "$bindir" ]; then
	echo "usage: $0 ensure BINDIR | build BINDIR DEST" >&2
	exit 2
fi

say() { echo "pgvector: $*" >&2; }

# The server's major version and its Debian package's version.
major=$("$bindir/postgres" -V | sed -E 's/^[^0-9]*([0-9]+).*/\1/')
pg_config="$bindir/pg_config"
server_pkg="postgresql-$major"

# sharedir is where the server looks for extension control files.
sharedir() {
	if [ -x "$pg_config" ]; then
		"$pg_config" --sharedir
	else
		echo "/usr/share/postgresql/$major"
	fi
}

installed() { [ -f "$(sharedir)/extension/vector.control" ]; }

can_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null 2>&1; }

apt_quiet() { DEBIAN_FRONTEND=noninteractive apt-get "$@" >&2; }

# The server package's installed version, for pinning its headers.
server_version() { dpkg-query -W -f='${Version}' "$server_pkg" 2>/dev/null || true; }

# server_dev installs postgresql-server-dev-NN at the server's exact
# version (and a compiler), never a newer one that would pull a server
# upgrade with it.
server_dev() {
	local v
	v=$(server_version)
	if [ -z "$v" ]; then
		say "cannot tell the installed version of $server_pkg; install postgresql-server-dev-$major matching it"
		return 1
	fi
	if [ "$(dpkg-query -W -f='${Version}' "postgresql-server-dev-$major" 2>/dev/null || true)" != "$v" ]; then
		say "installing postgresql-server-dev-$major=$v to build pgvector"
		apt_quiet install -y -qq --no-upgrade "postgresql-server-dev-$major=$v" || {
			say "postgresql-server-dev-$major=$v is not in the apt sources (a newer server release is): upgrade $server_pkg with the cluster stopped, then run make db again"
			return 1
		}
	fi
	if ! command -v make >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1; then
		apt_quiet install -y -qq --no-upgrade make gcc
	fi
	pg_config="/usr/lib/postgresql/$major/bin/pg_config"
}

# fetch_source DIR puts the upstream source of Debian trixie's pgvector
# source package in DIR/src, through a deb-src list that lives in DIR only.
# apt verifies it against trixie's signed Release, as any apt source.
fetch_source() {
	local dir=$1
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/get" "$dir/src"
	echo "deb-src http://deb.debian.org/debian trixie main" >"$dir/sources.list"
	local opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o "APT::Sandbox::User=root")
	apt_quiet "${opts[@]}" update -qq
	(cd "$dir/get" && apt_quiet "${opts[@]}" source --download-only -qq pgvector)
	local orig
	orig=$(ls "$dir"/get/pgvector_*.orig.tar.* 2>/dev/null | head -n1)
	if [ -z "$orig" ]; then
		say "trixie's pgvector source package has no upstream tarball"
		return 1
	fi
	say "building $(basename "$orig") against PostgreSQL $major"
	tar -xf "$orig" -C "$dir/src" --strip-components=1
}

# build DEST builds pgvector from Debian trixie's source into DEST ("" for
# the system).
build() {
	local dest=$1 tmp
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	fetch_source "$tmp"
	# OPTFLAGS="": no -march=native, so the build runs on any machine of
	# the architecture (Debian builds it the same way).
	make -s -C "$tmp/src" PG_CONFIG="$pg_config" OPTFLAGS="" -j"$(nproc 2>/dev/null || echo 2)" >&2
	make -s -C "$tmp/src" PG_CONFIG="$pg_config" OPTFLAGS="" DESTDIR="$dest" install >&2
}

case "$cmd" in
ensure)
	if installed; then
		exit 0
	fi
	if ! can_apt; then
		say "the vector extension is not installed and this is not a root Debian shell; install pgvector for PostgreSQL $major (https://github.com/pgvector/pgvector#installation) for recall by meaning. mnemo runs without it, with lexical recall."
		exit 0
	fi
	if apt-cache show "postgresql-$major-pgvector" >/dev/null 2>&1 ||
		{ apt_quiet update -qq && apt-cache show "postgresql-$major-pgvector" >/dev/null 2>&1; }; then
		# The package depends on the server; --no-upgrade keeps the running one.
		say "installing Debian's postgresql-$major-pgvector"
		apt_quiet install -y -qq --no-upgrade "postgresql-$major-pgvector"
	else
		server_dev
		build ""
	fi
	if ! installed; then
		say "installation finished but $(sharedir)/extension/vector.control is missing"
		exit 1
	fi
	say "installed for PostgreSQL $major"
	;;
build)
	dest=${3:-}
	if [ -z "$dest" ]; then
		echo "usage: $0 build BINDIR DEST" >&2
		exit 2
	fi
	build "$dest"
	;;
*)
	echo "usage: $0 ensure BINDIR | build BINDIR DEST" >&2
	exit 2
	;;
esac
