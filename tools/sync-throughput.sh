#!/bin/sh
# Deliveries per second of `bracelet sync --once` to a JSON Lines file and to tools/webhook-receiver.py
# on 127.0.0.1, and the cost of the outbox check at the start of every sync, on a generated outbox.
#
# usage: tools/sync-throughput.sh [BRACELET] [ENTRIES] [BIG_OUTBOX]
#   BRACELET    the binary (default .build/release/bracelet; build it with swift build -c release)
#   ENTRIES     entries to deliver (default 2000, 4 devices, ~300-byte summaries)
#   BIG_OUTBOX  rows of the delivered outbox the start-up check is timed on (default 100000)
# Needs sqlite3 and python3. Everything happens in a temporary folder that is removed at the end.
set -eu
B=$(realpath "${1:-.build/release/bracelet}")
N=${2:-2000}
BIG=${3:-100000}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'kill "$RECEIVER" 2>/dev/null || true; rm -rf "$T"' EXIT
RECEIVER=

# An outbox of $1 pending entries in database $2 (schema made by bracelet itself).
make_outbox() {
    : > "$2"
    "$B" sync --db "$2" --status > /dev/null
    sqlite3 "$2" "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $1)
        INSERT INTO outbox (key, kind, device, local_date, version, content_hash, payload, state, attempts, next_attempt_at, created_at)
        SELECT 'D' || (i % 4) || '/' || date('2020-01-01', '+' || (i / 4) || ' days') || '/daily/v1', 'daily:daily', 'D' || (i % 4),
               date('2020-01-01', '+' || (i / 4) || ' days'), 1, hex(randomblob(32)),
               json_object('device', 'D' || (i % 4), 'key', 'D' || (i % 4) || '/' || date('2020-01-01', '+' || (i / 4) || ' days') || '/daily/v1',
                           'kind', 'daily:daily', 'summary', json_object('steps', i, 'restingHR', 58, 'sleepMinutes', 431, 'hrvMs', 48.5,
                           'padding', hex(randomblob(100)))),
               'pending', 0, 0, 0 FROM n;"
}

seconds() { python3 -c 'import time; print(time.time())'; }
rate() { python3 -c "import sys; n, a, b = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]); print(f'{n} entries in {b - a:.2f} s = {n / (b - a):.0f} deliveries/s')" "$@"; }

make_outbox "$N" "$T/jsonl.db"
start=$(seconds); "$B" sync --db "$T/jsonl.db" --jsonl "$T/out.jsonl" --once --quiet; end=$(seconds)
echo "jsonl:   $(rate "$N" "$start" "$end") (fsync per line, SQLite commit with fsync per entry)"

make_outbox "$N" "$T/webhook.db"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 "$HERE/webhook-receiver.py" --secret bench --port "$PORT" > "$T/receiver.log" &
RECEIVER=$!
python3 -c "
import socket, sys, time
for _ in range(300):
    try:
        socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=1).close(); sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit('the receiver did not start')" "$PORT"
start=$(seconds); "$B" sync --db "$T/webhook.db" --webhook "http://127.0.0.1:$PORT/in" --secret bench --once --quiet; end=$(seconds)
echo "webhook: $(rate "$N" "$start" "$end") (tools/webhook-receiver.py, one connection per entry)"

make_outbox "$BIG" "$T/big.db"
sqlite3 "$T/big.db" "UPDATE outbox SET state = 'delivered', delivered_at = 1"
start=$(seconds); "$B" sync --db "$T/big.db" --jsonl "$T/none.jsonl" --once --quiet; end=$(seconds)
python3 -c "import sys; print(f'start-up with the outbox check on {sys.argv[1]} delivered rows: {float(sys.argv[3]) - float(sys.argv[2]):.3f} s')" "$BIG" "$start" "$end"
start=$(seconds); sqlite3 "$T/big.db" "PRAGMA integrity_check(outbox)" > /dev/null; end=$(seconds)
python3 -c "import sys; print(f'PRAGMA integrity_check(outbox) alone: {float(sys.argv[2]) - float(sys.argv[1]):.3f} s')" "$start" "$end"
