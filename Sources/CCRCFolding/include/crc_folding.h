// The bulk of the packet CRC-16 and the file CRC-32 by carry-less multiplication (PCLMULQDQ), when
// the CPU has it. The tables in Swift (BraceletProtocol's Checksums.swift) finish each checksum.
//
// Both functions fold the message 16 bytes at a time into a 128-bit remainder R with R(x) = M(x)
// mod P(x) for the bytes folded so far (the CRC's initial register already XORed into the first
// ones), and write R as 16 message bytes: the table-driven CRC of those bytes from a zero register,
// continued over the bytes not folded, is the CRC of the whole message. The constants are
// x^192 mod P and x^128 mod P (bit-reflected for CRC-32); tools/crc_folding_constants.py derives
// them and checks the method against the bitwise CRCs.
#pragma once
#include <stddef.h>
#include <stdint.h>

/// CRC-16/CCITT-FALSE (polynomial 0x1021, not reflected), register `crc` before `bytes`. Writes R
/// big-endian to `out` and returns how many bytes were folded: a multiple of 16, or 0 when the CPU
/// lacks PCLMULQDQ and SSSE3 or there are fewer than 32 bytes (then `out` is untouched).
size_t bracelet_crc16_fold(uint16_t crc, const uint8_t *bytes, size_t count, uint8_t out[16]);

/// CRC-32/ISO-HDLC (reflected polynomial 0xEDB88320), register `crc` (not inverted) before
/// `bytes`. Writes R little-endian to `out`; returns the bytes folded, as above.
size_t bracelet_crc32_fold(uint32_t crc, const uint8_t *bytes, size_t count, uint8_t out[16]);
