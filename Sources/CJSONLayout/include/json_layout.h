// Byte work on canonical JSON in C. The indented layout (BraceletDecoder's CanonicalJSON.PrettyWriter):
// the document is classified 64 bytes at a time into brackets, commas and colons outside strings,
// and only those get layout; everything between them is copied as it is. Portable C (clang vector
// extensions), so x86-64 and arm64 take the same path. And the search of a byte string in it
// (ByteSearch), by the C library's memmem, which Swift's Glibc module does not declare.
#pragma once
#include <stddef.h>
#include <stdint.h>

/// Where laid-out bytes go when the block is full or the writer is flushed: `count` bytes at `bytes`.
typedef void (*bracelet_layout_sink)(void *context, const uint8_t *bytes, size_t count);

/// A writer's state between pieces: the block being filled and where the layout stands.
typedef struct {
    uint8_t *block;
    size_t capacity;
    size_t used;
    bracelet_layout_sink sink;
    void *context;
    /// Nesting depth of the next line.
    int64_t depth;
    /// The closing bracket that would make the container just opened empty (0: none pending).
    uint8_t pending_close;
    uint8_t in_string;
    uint8_t escaping;
} bracelet_layout;

/// Lays out the next `count` bytes of canonical JSON (a piece may end anywhere); bytes that are not
/// canonical JSON are laid out all the same, never read out of bounds.
void bracelet_layout_write(bracelet_layout *writer, const uint8_t *bytes, size_t count);

/// Ends the layout: a container left open breaks its line, as in a whole document.
void bracelet_layout_finish(bracelet_layout *writer);

/// Hands what is in the block to the sink.
void bracelet_layout_flush(bracelet_layout *writer);

/// The first occurrence of `needle` in `haystack` (glibc's memmem), NULL when there is none.
const void *bracelet_find_bytes(const void *haystack, size_t haystack_count, const void *needle, size_t needle_count);
