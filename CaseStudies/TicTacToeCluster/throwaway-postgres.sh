# A throwaway PostgreSQL on a free loopback port, for run-pg-server.sh and run-cluster.sh, which
# source this file after setting `script` (their name, for messages). Not a program of its own.
#
#   postgres_find                 sets `binaries`, or exits 69 if PostgreSQL or libpq is missing
#   postgres_directory KEEP NAME  sets `directory`: KEEP (created) or a new /tmp/NAME.XXXXXX
#   postgres_start                initdb once, then start: sets `port`, or exits 71 with its log
#   postgres_stop                 stops it (fast), quietly; for the caller's cleanup

postgres_find() {
  binaries="$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -1 || true)"
  if [ -z "$binaries" ] || ! pkg-config --exists libpq; then
    echo "$script: PostgreSQL and libpq are needed: apt-get install postgresql libpq-dev" >&2
    exit 69
  fi
}

# PostgreSQL refuses to run as root: as root, run its programs as `postgres`.
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

postgres_directory() {
  if [ -n "$1" ]; then
    mkdir -p "$1"
    directory="$(cd "$1" && pwd)"
  else
    directory="$(mktemp -d "/tmp/$2.XXXXXX")"
  fi
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$directory"; fi
}

postgres_start() {
  if [ ! -f "$directory/data/PG_VERSION" ]; then
    as_postgres "$binaries/initdb" -D "$directory/data" -U postgres -A trust --no-sync > /dev/null
  fi
  # A free loopback port: the first that nothing answers on and PostgreSQL binds.
  port=""
  local candidate
  for candidate in $(shuf -i 20000-60000 -n 20); do
    if (echo > "/dev/tcp/127.0.0.1/$candidate") 2> /dev/null; then continue; fi
    if as_postgres "$binaries/pg_ctl" start -w -t 60 -D "$directory/data" \
      -l "$directory/postgresql.log" \
      -o "-p $candidate -k $directory -c listen_addresses=127.0.0.1" > /dev/null; then
      port="$candidate"
      break
    fi
  done
  if [ -z "$port" ]; then
    # The directory goes with the caller's cleanup: show the log first.
    echo "$script: PostgreSQL did not start; its log:" >&2
    cat "$directory/postgresql.log" >&2 2> /dev/null || true
    exit 71
  fi
  echo "$script: PostgreSQL on 127.0.0.1:$port (data in $directory)" >&2
}

postgres_stop() {
  as_postgres "$binaries/pg_ctl" stop -w -m fast -D "$directory/data" > /dev/null 2>&1 || true
}
