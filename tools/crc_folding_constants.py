#!/usr/bin/env python3
"""Derives the folding constants of Sources/CCRCFolding and checks the method against bitwise CRCs.

Folding keeps a 128-bit remainder R of the message so far: R(x) * x^128 + D(x) becomes
hi(R) * (x^192 mod P) + lo(R) * (x^128 mod P) + D(x), which is the same modulo P. The table-driven CRC
of R's 16 bytes from a zero register, continued over the bytes left, is then the message's CRC. For
the reflected CRC-32 the halves swap roles and a carry-less product of two reflected values comes out
shifted by one bit, so the constants are x^191 and x^127 mod P, bit-reversed into 64 bits.

usage: tools/crc_folding_constants.py     (prints the constants; exits 1 when a check fails)
"""
import random
import sys
import zlib


def clmul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        b >>= 1
    return r


def mod(a, p):
    while a.bit_length() >= p.bit_length():
        a ^= p << (a.bit_length() - p.bit_length())
    return a


def reflect(v, bits):
    return int(format(v, f"0{bits}b")[::-1], 2)


LOW = (1 << 64) - 1


def crc16_bitwise(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE register after `data`."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def crc32_bitwise(data, crc=0xFFFFFFFF):
    """CRC-32/ISO-HDLC register (not inverted) after `data`."""
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xEDB88320 if crc & 1 else crc >> 1
    return crc


P16, P32 = 0x11021, 0x104C11DB7
K16_HIGH, K16_LOW = mod(1 << 192, P16), mod(1 << 128, P16)
K32_LOW, K32_HIGH = reflect(mod(1 << 191, P32), 64), reflect(mod(1 << 127, P32), 64)


def crc16_folded(data, crc=0xFFFF):
    if len(data) < 32:
        return crc16_bitwise(data, crc)
    r = int.from_bytes(data[:16], "big") ^ (crc << 112)
    i = 16
    while len(data) - i >= 16:
        r = clmul(r >> 64, K16_HIGH) ^ clmul(r & LOW, K16_LOW) ^ int.from_bytes(data[i:i + 16], "big")
        i += 16
    return crc16_bitwise(data[i:], crc16_bitwise(r.to_bytes(16, "big"), 0))


def crc32_folded(data, crc=0xFFFFFFFF):
    if len(data) < 32:
        return crc32_bitwise(data, crc)
    r = int.from_bytes(data[:16], "little") ^ crc
    i = 16
    while len(data) - i >= 16:
        r = clmul(r & LOW, K32_LOW) ^ clmul(r >> 64, K32_HIGH) ^ int.from_bytes(data[i:i + 16], "little")
        i += 16
    return crc32_bitwise(data[i:], crc32_bitwise(r.to_bytes(16, "little"), 0))


def main():
    print(f"CRC-16: x^192 mod P = {K16_HIGH:#06x}, x^128 mod P = {K16_LOW:#06x}")
    print(f"CRC-32: low half {K32_LOW:#018x}, high half {K32_HIGH:#018x}")
    rng = random.Random(7)
    failures = 0
    for n in list(range(0, 130)) + [rng.randrange(130, 3000) for _ in range(100)]:
        data = bytes(rng.randrange(256) for _ in range(n))
        failures += crc16_folded(data) != crc16_bitwise(data)
        failures += crc32_folded(data) ^ 0xFFFFFFFF != zlib.crc32(data)
    assert crc16_bitwise(b"123456789") == 0x29B1
    print("checks:", "all pass" if failures == 0 else f"{failures} FAIL")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
