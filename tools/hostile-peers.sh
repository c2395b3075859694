#!/usr/bin/env bash
# tools/hostile-peers.sh: `bracelet sync` and `gateway run` against peers on 127.0.0.1 that misbehave
# the way real ones do, with the default timeouts (the tests use short ones):
#   1. a receiver answering 200 with a 512 MiB body: `sync --once` delivers, its peak RSS stays under
#      96 MB (/usr/bin/time -v), and the receiver could not write more than its socket buffers;
#   2. a receiver that takes connections and never answers, three bracelets pending: `sync --once`
#      ends within 45 s (exit 75);
#   2b. a receiver answering garbage (a negative Content-Length or chunk size, a chunk-size line or
#      interim answers without end): `sync --once` neither traps nor reads on, it exits 75 saying
#      the answer is malformed, and the receiver could write at most its socket buffers;
#   3. a PostgreSQL that takes the login and never answers (a proxy in front of a throwaway cluster
#      from tools/pg-cluster.sh that stops forwarding after the login): `sync --once` ends within 45 s;
#   4. SIGTERM ends `sync --follow` and `gateway run` within 5 s while they wait on those peers.
# Prints one line per check with its figure; exits 1 on the first failure.
#
# Usage: tools/hostile-peers.sh        (BRACELET=path to test another binary; default the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
bin=${BRACELET:-$repo/.build/release/bracelet}
[ -x "$bin" ] || { echo "hostile-peers: no $bin: run swift build -c release (or set BRACELET)" >&2; exit 2; }
work=$(mktemp -d /tmp/bracelet-hostile.XXXXXX)
cluster=""
cleanup() {
  jobs -p | xargs -r kill 2>/dev/null || true
  [ -n "$cluster" ] && tools/pg-cluster.sh stop "$cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "hostile-peers: FAIL: $*" >&2; exit 1; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# The peers: one Python program, the misbehaviour chosen by its first argument.
cat >"$work/peer.py" <<'PY'
import socket, sys, threading
mode, port = sys.argv[1], int(sys.argv[2])
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(64)
written = [0]

def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return False
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return False
        body += chunk
    return True

def huge(conn):
    if not read_request(conn):
        return
    total = 512 << 20
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % total)
    chunk, sent = b"a" * 65536, 0
    try:
        while sent < total:
            sent += conn.send(chunk)
    except OSError:
        pass
    written[0] = max(written[0], sent)
    print("wrote", sent, flush=True)

def silent(conn):
    read_request(conn)
    print("request", flush=True)
    threading.Event().wait()  # never answers, never closes

GARBAGE = [
    (b"HTTP/1.1 500 Oops\r\nContent-Length: -1\r\n\r\n", b"a"),
    (b"HTTP/1.1 502 Bad\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\n", b"a"),
    (b"HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n1;x=", b"a" * 65536),
    (b"", b"HTTP/1.1 100 Continue\r\n\r\n" * 2048),
]
served = [0]

def garbage(conn):
    if not read_request(conn):
        return
    head, filler = GARBAGE[served[0] % len(GARBAGE)]
    served[0] += 1
    sent = 0
    try:
        conn.sendall(head)
        while sent < 512 << 20:
            sent += conn.send(filler)
    except OSError:
        pass
    written[0] = max(written[0], sent)
    print("wrote", sent, flush=True)

def stall_postgres(conn, upstream_port):
    # Forwards the login, then nothing more from the first ReadyForQuery ('Z') on.
    upstream = socket.create_connection(("127.0.0.1", upstream_port))
    stalled = threading.Event()
    def client_to_server():
        while True:
            data = conn.recv(65536)
            if not data:
                return
            if not stalled.is_set():
                upstream.sendall(data)
    threading.Thread(target=client_to_server, daemon=True).start()
    pending = b""
    while not stalled.is_set():
        data = upstream.recv(65536)
        if not data:
            return
        pending += data
        while len(pending) >= 5:
            length = int.from_bytes(pending[1:5], "big")
            if len(pending) < 1 + length:
                break
            message, pending = pending[:1 + length], pending[1 + length:]
            conn.sendall(message)
            if message[:1] == b"Z":
                stalled.set()
                print("stalled", flush=True)
                break
    threading.Event().wait()

print("ready", flush=True)
while True:
    conn, _ = listener.accept()
    if mode == "huge":
        target = (huge, (conn,))
    elif mode == "silent":
        target = (silent, (conn,))
    elif mode == "garbage":
        target = (garbage, (conn,))
    else:
        target = (stall_postgres, (conn, int(mode.split(":")[1])))
    threading.Thread(target=target[0], args=target[1], daemon=True).start()
PY

start_peer() {  # mode port logfile
  python3 "$work/peer.py" "$1" "$2" >"$3" 2>&1 &
  for _ in $(seq 100); do grep -q ready "$3" 2>/dev/null && return 0; sleep 0.1; done
  fail "the $1 peer did not start"
}

# A database with pending entries of three bracelets.
db=$work/g.db
for capture in v1-day v2-three-days v2-daylight-saving; do
  "$bin" ingest "captures/$capture.btsnoop" --db "$db" --tz UTC --age 35 >/dev/null 2>&1
done
fresh() { rm -f "$1"*; cp "$db" "$1"; }
export BRACELET_WEBHOOK_SECRET="whsec_$(openssl rand -base64 32)"

# 1. A 512 MiB answer.
port=$(free_port); start_peer huge "$port" "$work/huge.log"
fresh "$work/1.db"
/usr/bin/time -v "$bin" sync --db "$work/1.db" --webhook "http://127.0.0.1:$port/in" --once >"$work/1.out" 2>"$work/1.err" \
  || { tail -5 "$work/1.err" >&2; fail "sync --once against a 512 MiB answer failed"; }
rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/1.err")
most=$(awk '/^wrote/ {print $2}' "$work/huge.log" | sort -n | tail -1)
grep -q "sync: done: [1-9][0-9]* delivered" "$work/1.err" || fail "nothing delivered against the 512 MiB answer"
[ "$rss" -lt 98304 ] || fail "peak RSS $rss kB against a 512 MiB answer (limit 96 MB)"
[ "$most" -lt $((64 << 20)) ] || fail "the receiver wrote $most bytes of its 512 MiB answer"
echo "hostile-peers: 512 MiB answer: peak RSS $((rss / 1024)) MiB, at most $((most >> 10)) KiB of an answer written"

# 2. A receiver that never answers (default --timeout 10 s).
port=$(free_port); start_peer silent "$port" "$work/silent.log"
fresh "$work/2.db"
t0=$(now); status=0
timeout 120 "$bin" sync --db "$work/2.db" --webhook "http://127.0.0.1:$port/in" --once >/dev/null 2>"$work/2.err" || status=$?
took=$(since "$t0")
[ "$status" -eq 75 ] || { tail -3 "$work/2.err" >&2; fail "sync --once against a silent receiver exited $status, not 75"; }
[ "$(echo "$took < 45" | bc)" -eq 1 ] || fail "sync --once against a silent receiver took $took s"
printf 'hostile-peers: silent receiver: sync --once ended in %.1f s (exit 75)\n' "$took"

# 2b. Garbage answers, one kind per connection: a failed attempt without an answer ends a pass, so
# one run of sync --once per kind (retries due at once).
port=$(free_port); start_peer garbage "$port" "$work/garbage.log"
fresh "$work/2b.db"
for kind in 1 2 3 4; do
  status=0
  timeout 120 "$bin" sync --db "$work/2b.db" --webhook "http://127.0.0.1:$port/in" --once --base-delay 0.001 --max-delay 0.002 \
    >/dev/null 2>"$work/2b.err" || status=$?
  [ "$status" -eq 75 ] || { tail -3 "$work/2b.err" >&2; fail "sync --once against garbage answer $kind exited $status, not 75"; }
  grep -q "answer is malformed\|headers are larger than 64 KiB" "$work/2b.err" || fail "garbage answer $kind not named: $(tail -1 "$work/2b.err")"
  sleep 0.01
done
most=$(awk '/^wrote/ {print $2}' "$work/garbage.log" | sort -n | tail -1)
[ "${most:-0}" -lt $((64 << 20)) ] || fail "the garbage receiver wrote $most bytes of its 512 MiB answer"
echo "hostile-peers: garbage answers: sync --once exit 75, at most $((${most:-0} >> 10)) KiB of an answer written"

# 3. A PostgreSQL that takes the login and never answers (default statement_timeout 30 s + 5 s).
read -r cluster url < <(tools/pg-cluster.sh start | tr '\t' ' ')
upstream=${url##*127.0.0.1:}; upstream=${upstream%%/*}
port=$(free_port); start_peer "stall:$upstream" "$port" "$work/stall.log"
printf '%s\n' "$(echo "$url" | sed "s/127.0.0.1:$upstream/127.0.0.1:$port/")?sslmode=disable&gssencmode=disable" >"$work/fleet.url"
chmod 600 "$work/fleet.url"
fresh "$work/3.db"
t0=$(now); status=0
timeout 120 "$bin" sync --db "$work/3.db" --postgres-file "$work/fleet.url" --once >/dev/null 2>"$work/3.err" || status=$?
took=$(since "$t0")
[ "$status" -eq 75 ] || { tail -3 "$work/3.err" >&2; fail "sync --once against a stalled PostgreSQL exited $status, not 75"; }
[ "$(echo "$took < 45" | bc)" -eq 1 ] || fail "sync --once against a stalled PostgreSQL took $took s"
grep -q "no answer within 35 s" "$work/3.err" || fail "the stalled PostgreSQL's timeout is not named: $(tail -1 "$work/3.err")"
printf 'hostile-peers: stalled PostgreSQL: sync --once ended in %.1f s (exit 75, "no answer within 35 s")\n' "$took"

# 4. SIGTERM while a delivery waits.
sigterm() {  # name logfile pattern -- command...: SIGTERM once the peer logged one more line with pattern
  local name=$1 log=$2 pattern=$3; shift 4
  local before; before=$(grep -c "$pattern" "$log" || true)
  "$@" >/dev/null 2>"$work/sigterm.err" &
  local pid=$!
  for _ in $(seq 600); do [ "$(grep -c "$pattern" "$log" || true)" -gt "$before" ] && break; sleep 0.1; done
  [ "$(grep -c "$pattern" "$log" || true)" -gt "$before" ] || fail "$name never reached its peer: $(tail -2 "$work/sigterm.err")"
  local t0; t0=$(now)
  kill -TERM "$pid"
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
  kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; fail "$name did not end within 6 s of SIGTERM"; }
  local took; took=$(since "$t0")
  [ "$(echo "$took < 5" | bc)" -eq 1 ] || fail "$name took $took s to end after SIGTERM"
  printf 'hostile-peers: SIGTERM ended %s in %.2f s\n' "$name" "$took"
}
port=$(free_port); start_peer silent "$port" "$work/silent2.log"
fresh "$work/4.db"
sigterm "sync --follow (silent receiver)" "$work/silent2.log" request -- \
  "$bin" sync --db "$work/4.db" --webhook "http://127.0.0.1:$port/in" --follow
fresh "$work/5.db"
sigterm "gateway run (silent receiver)" "$work/silent2.log" request -- \
  "$bin" gateway run --db "$work/5.db" --webhook "http://127.0.0.1:$port/in"
fresh "$work/7.db"
sigterm "sync --follow (stalled PostgreSQL)" "$work/stall.log" stalled -- \
  "$bin" sync --db "$work/7.db" --postgres-file "$work/fleet.url" --follow
fresh "$work/6.db"
sigterm "gateway run (stalled PostgreSQL)" "$work/stall.log" stalled -- \
  "$bin" gateway run --db "$work/6.db" --postgres-file "$work/fleet.url"
echo "hostile-peers: OK"
