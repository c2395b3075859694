#!/usr/bin/env python3
"""bracelet's page checksum (Sources/CPageChecksum), implemented a second time from its description,
for tools that write a bracelet database with Python's sqlite3 or the sqlite3 shell: those write
pages without checksums, which bracelet then refuses as damage. Sealing writes every page's
checksum again. Only for a file you just made or changed yourself, with no process holding it open
and its WAL checkpointed: sealing a damaged file would make the damage look valid.

Usage: python3 tools/pagechecksum.py DB    (seals DB in place; a file without reserved bytes is left alone)
"""
import itertools
import struct
import sys


def page_checksum(page):
    """Two running sums over the little-endian 32-bit words before the last 8 bytes, modulo 2^32,
    started at 0x9E3779B9 and 0x7F4A7C15; stored little-endian as a, then b."""
    words = struct.unpack(f"<{(len(page) - 8) // 4}I", page[:-8])
    a0, b0 = 0x9E3779B9, 0x7F4A7C15
    a = (a0 + sum(words)) & 0xFFFFFFFF
    b = (b0 + len(words) * a0 + sum(itertools.accumulate(words))) & 0xFFFFFFFF
    return struct.pack("<II", a, b)


def seal_pages(path):
    """Writes the checksum of every page into its 8 reserved bytes (when the file has them)."""
    with open(path, "r+b") as f:
        header = f.read(100)
        if header[20] != 8:
            return
        size = int.from_bytes(header[16:18], "big")
        size = 65536 if size == 1 else size
        f.seek(0)
        number = 0
        while True:
            page = f.read(size)
            if len(page) < size:
                break
            number += 1
            if number != 1073741824 // size + 1:  # the lock-byte page is never written
                f.seek(-8, 1)
                f.write(page_checksum(page))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    seal_pages(sys.argv[1])
