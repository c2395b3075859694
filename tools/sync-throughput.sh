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

# An outbox of $1 pending entries in database $2 (schema made by bracelet itself). Each payload is a
# canonical envelope whose content hash is the SHA-256 of its summary bytes, as bracelet writes them:
# sync checks that before it sends anything.
make_outbox() {
    : > "$2"
    "$B" sync --db "$2" --status > /dev/null
    python3 - "$1" "$2" <<'PY'
import datetime, hashlib, json, os, sqlite3, sys
count, path = int(sys.argv[1]), sys.argv[2]
db = sqlite3.connect(path)
rows = []
for i in range(count):
    device, day = "D%d" % (i % 4), (datetime.date(2020, 1, 1) + datetime.timedelta(days=i // 4)).isoformat()
    key = "%s/%s/daily/v1" % (device, day)
    summary = json.dumps({"steps": i, "restingHR": 58, "sleepMinutes": 431, "hrvMs": 48.5, "padding": os.urandom(100).hex()},
                         sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(summary.encode()).hexdigest()
    payload = '{"content_hash":"%s","device":"%s","key":"%s","kind":"daily:daily","local_date":"%s","summary":%s,"version":1}' % (
        digest, device, key, day, summary)
    rows.append((key, "daily:daily", device, day, 1, digest, payload, "pending", 0, 0, 0))
db.executemany("""INSERT INTO outbox (key, kind, device, local_date, version, content_hash, payload, state, attempts,
                  next_attempt_at, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)""", rows)
db.commit()
db.close()
PY
    seal "$2"
}

# The sqlite3 shell and Python write pages without bracelet's page checksums, which bracelet refuses
# as damage: a file edited here is sealed again once the edit is in the file.
seal() { sqlite3 "$1" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null; python3 "$HERE/pagechecksum.py" "$1"; }

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
start=$(seconds); BRACELET_WEBHOOK_SECRET=bench "$B" sync --db "$T/webhook.db" --webhook "http://127.0.0.1:$PORT/in" --once --quiet; end=$(seconds)
echo "webhook: $(rate "$N" "$start" "$end") (tools/webhook-receiver.py, one connection per entry)"

make_outbox "$BIG" "$T/big.db"
sqlite3 "$T/big.db" "UPDATE outbox SET state = 'delivered', delivered_at = 1"
seal "$T/big.db"
start=$(seconds); "$B" sync --db "$T/big.db" --jsonl "$T/none.jsonl" --once --quiet; end=$(seconds)
python3 -c "import sys; print(f'start-up with the outbox check on {sys.argv[1]} delivered rows: {float(sys.argv[3]) - float(sys.argv[2]):.3f} s')" "$BIG" "$start" "$end"
start=$(seconds); sqlite3 -readonly "$T/big.db" "PRAGMA integrity_check(outbox)" > /dev/null; end=$(seconds)
python3 -c "import sys; print(f'PRAGMA integrity_check(outbox) alone: {float(sys.argv[2]) - float(sys.argv[1]):.3f} s')" "$start" "$end"
