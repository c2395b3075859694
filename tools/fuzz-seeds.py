#!/usr/bin/env python3
"""Writes the seed corpus of every libFuzzer harness (Fuzz/) into OUT/<harness>/.

Seeds come from the project's own inputs: windows of the bundled captures (connection and GATT
discovery records, then a run of transfer records, each window at most 4 KiB), the hex vectors of
protocol-specs/test-vectors.md, the ROOK fixtures of the vitality tests and small hand-made CSV,
advertisement and ATT inputs. The committed regression inputs (Tests/Fixtures/fuzz-regressions/) are
run separately by tools/fuzz.sh.

Usage: python3 tools/fuzz-seeds.py OUT
"""
import hashlib
import pathlib
import re
import struct
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
WINDOW = 4 * 1024


def write(out: pathlib.Path, harness: str, data: bytes) -> None:
    folder = out / harness
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def btsnoop_records(data: bytes):
    """(header, [record bytes]) of a btsnoop file."""
    header, offset, records = data[:16], 16, []
    while offset + 24 <= len(data):
        included = struct.unpack(">I", data[offset + 4:offset + 8])[0]
        end = offset + 24 + included
        if end > len(data):
            break
        records.append(data[offset:end])
        offset = end
    return header, records


def capture_windows(path: pathlib.Path):
    header, records = btsnoop_records(path.read_bytes())
    # The session set-up (connection, MTU, discovery) so that handles are learnt in every window.
    setup, size = [], 0
    for record in records[:60]:
        if size + len(record) > 1536:
            break
        setup.append(record)
        size += len(record)
    start = len(setup)
    while start < len(records):
        window, size = [], len(header) + sum(map(len, setup))
        index = start
        while index < len(records) and size + len(records[index]) <= WINDOW:
            window.append(records[index])
            size += len(records[index])
            index += 1
        yield header + b"".join(setup + window)
        start = max(index, start + 1)


def vectors():
    text = (ROOT / "protocol-specs" / "test-vectors.md").read_text()
    for block in re.findall(r"```vector\n(.*?)```", text, re.S):
        fields = dict(line.split(": ", 1) for line in block.strip().splitlines() if ": " in line)
        yield fields["kind"], bytes.fromhex(fields["hex"])


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    for capture in sorted((ROOT / "captures").glob("*.btsnoop")):
        windows = list(capture_windows(capture))
        # 50 windows spread over each capture: every phase of a session, without thousands of seeds.
        for window in windows[::max(1, len(windows) // 50)]:
            for harness in ("FuzzBtsnoop", "FuzzCaptureReader", "FuzzReplay"):
                write(out, harness, window)
    frame_selector = {"packet": 0, "header": 1, "file": 2, "command": 3, "response": 4}
    records = {"record-v1": b"", "record-v2": b"", "record-beats": b""}
    for kind, data in vectors():
        if kind in frame_selector:
            write(out, "FuzzFrames", bytes([frame_selector[kind]]) + data)
        if kind in records:
            records[kind] += data
        if kind == "file":
            write(out, "FuzzDecoders", bytes([0]) + data)
    write(out, "FuzzDecoders", bytes([0]) + records["record-v1"])
    write(out, "FuzzDecoders", bytes([1]) + records["record-v2"])
    write(out, "FuzzDecoders", bytes([0]) + records["record-beats"])
    # Heart Rate Measurement: u8 bpm with RR, u16 bpm with energy and contact.
    write(out, "FuzzFrames", bytes([5, 0x10, 72, 0x00, 0x04, 0x10, 0x04]))
    write(out, "FuzzFrames", bytes([5, 0x0F, 0x48, 0x00, 0x10, 0x00]))
    # Standard health characteristics (FuzzHealth: selector, value): IEEE 11073 floats (numbers and
    # the special values), PLX continuous and spot-check measurements of a real oximeter and one
    # with every optional field, the SIG white paper's thermometer reading and one with a time
    # stamp and a site, a battery level, a Device Information string.
    write(out, "FuzzHealth", bytes.fromhex("00" "14f0 0000" "ff07 7f00" "0008 8000" "6c01 00ff" "0208 0280"))
    write(out, "FuzzHealth", bytes.fromhex("01" "0c 6200 4e00 2000 000000"))
    write(out, "FuzzHealth", bytes.fromhex("01" "1f 6100 3d00 c0f3 ff07 6200 3c00 8001 100800 23f0"))
    write(out, "FuzzHealth", bytes.fromhex("02" "17 6100 6000 e107 01 01 01 22 13 2000 200000"))
    write(out, "FuzzHealth", bytes.fromhex("03" "00 6c0100ff"))
    write(out, "FuzzHealth", bytes.fromhex("03" "07 a50300ff ea07 06 13 03 37 02 09"))
    write(out, "FuzzHealth", bytes.fromhex("04" "40"))
    write(out, "FuzzHealth", bytes([5]) + b"HRSIM001\x00")
    # Advertising data: flags, service data for 0xFFFF, complete local name; and a management
    # Device Found event carrying it (address, LE public, RSSI -60, flags, length, data).
    service = bytes([0x01]) + b"BR200007" + struct.pack("<HHH", 0x0B1E, 0x0002, 2)
    ad = bytes([2, 0x01, 0x06, 3 + len(service), 0x16, 0xFF, 0xFF]) + service + bytes([12, 0x09]) + b"Bracelet V2"
    write(out, "FuzzAdvertisement", ad)
    found = bytes.fromhex("ffeeddccbbaa") + bytes([1, 0xC4]) + struct.pack("<IH", 0, len(ad)) + ad
    write(out, "FuzzAdvertisement", found)
    # ATT PDUs: MTU exchange (23, 517), reads, writes, discovery responses, notifications, errors.
    for pdu in ["02 17 00", "03 05 02", "0a 03 00", "0b 42 52 31", "12 10 00 10 01", "52 10 00 03 09",
                "1b 14 00" + " 00" * 20, "1d 14 00 01", "1e", "01 12 10 00 0a",
                "08 01 00 ff ff 03 28", "09 07 02 00 10 03 00 37 2a",
                "09 15 0b 00 1c 0c 00 35 7d 0e 1f 4c 8a 2b 9d 7e 4f 3a 5c 03 00 1e 6b",
                "10 01 00 ff ff 00 28", "11 06 01 00 05 00 0d 18", "04 01 00 ff ff", "05 01 03 00 02 29",
                "0c 10 00 16 00", "16 10 00 00 00 41 42", "18 01", "19"]:
        write(out, "FuzzATTPDU", bytes.fromhex(pdu.replace(" ", "")))
    csv_rows = ["t,bpm,bpm_q,steps,skin_temp_c,spo2,spo2_q", "1774742400000,62,4,0,33.5,97,3",
                "1774742460000,64,3,12,33.6,,", "1774742520000,,,40,33.7,96,2"]
    write(out, "FuzzCSV", ("\n".join(csv_rows) + "\n").encode())
    write(out, "FuzzCSV", b"t,rr_ms\n1774742400000,812\n1774742400812,790\n1774742401602,\n")
    write(out, "FuzzCSV", b"time,breath,breath_q,eda_us,sleep_stage,wearing,battery\r\n1774742400000,13.25,3,0.5,2,4,81\r\n")
    for fixture in sorted((ROOT / "Tests" / "BraceletVitalityTests" / "Fixtures").glob("*.json")):
        write(out, "FuzzROOK", fixture.read_bytes())
    # Canonical JSON as stored: nested objects and arrays, empty ones at many offsets, escapes.
    slot = b'{"calories":0,"distance":0,"intervalDate":1793239860,"steps":0}'
    write(out, "FuzzLayout", b'{"activity":{"slots":[' + b",".join([slot] * 20) + b'],"x":[]},"date":"2026-06-17"}')
    write(out, "FuzzLayout", b'[' + b",".join([b'{}', b'[]', b'"a\\\"b"', b'[[{"k":[]}]]', b'"{[,:]}"'] * 12) + b']')


if __name__ == "__main__":
    main()
