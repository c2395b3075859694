# An HCI trace (btmon -w) that proves it is complete, for the ble-vm guest scripts (sourced).
#
#   btmon_start FILE     starts btmon writing FILE; returns once btmon's monitor socket is bound
#   btmon_stop           stops it (SIGINT: btmon writes every packet as it reads it, nothing is buffered)
#   btmon_drops          monitor packets the kernel dropped for btmon since btmon_start ("?" when unknown)
#
# Why: the kernel hands every HCI packet to a monitor socket with sock_queue_rcv_skb and silently
# drops it when the socket's receive queue is full. btmon never sizes its queue, so it gets
# net.core.rmem_default (212992 bytes: 278 monitor packets, each 768 bytes of truesize in the
# kernel's accounting, measured). Passkey entry is a burst of some 250 monitor packets within
# 25 ms (20 rounds of confirm and random, each seen on both controllers with its Number of Completed
# Packets), the transfer a longer one; a btmon starved of CPU under software emulation fell behind,
# and the end of the pairing (DHKey checks, LE Start Encryption, Encryption Change, key
# distribution) was dropped while the link was encrypted. VM runs of a pairing and a one-day sync
# (release build): with a 213000-byte queue 3394 and 2974 packets dropped, traces of 2877 and 3295
# frames (the second without LE Start Encryption and Encryption Change); with BTMON_RCVBUF's 8 MiB,
# 5 of 5 runs dropped none, traces of 6242 to 6516 frames. The
# kernel counts each drop in the sock:sock_rcvqueue_full trace event, which names the queue's
# size; btmon's socket is the only one created while rmem_default has BTMON_RCVBUF, so the event
# lines with that size are exactly btmon's losses.
BTMON_RCVBUF=${BTMON_RCVBUF:-8388608}
BTMON=
BTMON_TRACING=

btmon_start() {
  local file=$1 default
  BTMON_TRACING=
  for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
    [ -e $t/events/sock/sock_rcvqueue_full/enable ] || mount -t tracefs nodev $t 2>/dev/null
    if [ -w $t/events/sock/sock_rcvqueue_full/enable ]; then BTMON_TRACING=$t; break; fi
  done
  if [ -n "$BTMON_TRACING" ]; then
    echo 1 > $BTMON_TRACING/events/sock/sock_rcvqueue_full/enable
    echo > $BTMON_TRACING/trace
  fi
  default=$(cat /proc/sys/net/core/rmem_default)
  echo "$BTMON_RCVBUF" > /proc/sys/net/core/rmem_default
  btmon -w "$file" > /dev/null 2>&1 &
  BTMON=$!
  # Bound once the kernel replayed its controllers into the trace (New Index, after the 16-byte header).
  for _ in $(seq 100); do [ "$(stat -c %s "$file" 2>/dev/null || echo 0)" -gt 16 ] && break; sleep 0.1; done
  echo "$default" > /proc/sys/net/core/rmem_default
}

btmon_stop() {
  [ -n "$BTMON" ] && kill -INT "$BTMON" 2>/dev/null && wait "$BTMON" 2>/dev/null
  BTMON=
}

btmon_drops() {
  if [ -z "$BTMON_TRACING" ]; then echo "?"; return; fi
  grep -c "sock_rcvqueue_full:.* sk_rcvbuf=$BTMON_RCVBUF\$" $BTMON_TRACING/trace
}
