#include "json_layout.h"
#include <string.h>

/* The layout is Foundation's JSONEncoder with [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
 * on bytes that are already canonical (no whitespace outside strings):
 *   `{` or `[`  the bracket, then a line one level deeper; an empty container is `[`, an empty line
 *               and `]` at the container's own level,
 *   `}` or `]`  a line one level up, then the bracket,
 *   `,`         the comma, then a new line at the same level,
 *   `:`         ` : `,
 * a line being a newline and two spaces per level. Strings (with their escapes) and numbers and
 * literals are copied as they are. */

typedef uint8_t bytes64 __attribute__((ext_vector_type(64)));
typedef _Bool bits64 __attribute__((ext_vector_type(64)));

/* Bit i set where byte i of the 64 in `v` is `c` (a compare and a mask extraction per 16 bytes on
 * SSE2 or NEON). A macro: a 64-byte vector passed to a function would change the calling
 * convention between builds with and without AVX-512. */
#define MATCHES(v, c) __builtin_bit_cast(uint64_t, __builtin_convertvector((v) == (uint8_t)(c), bits64))

/* Bit i set when an odd number of bits at or below i are set: inside a string from its opening
 * quote up to (not including) its closing one. */
static inline uint64_t prefix_xor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

static void flush(bracelet_layout *w) {
    if (w->used > 0) w->sink(w->context, w->block, w->used);
    w->used = 0;
}

/* Copies `count` bytes, handing full blocks to the sink on the way. */
static void copy(bracelet_layout *w, const uint8_t *from, size_t count) {
    while (count > 0) {
        if (w->used == w->capacity) flush(w);
        size_t n = w->capacity - w->used;
        if (n > count) n = count;
        memcpy(w->block + w->used, from, n);
        w->used += n;
        from += n;
        count -= n;
    }
}

static inline void put(bracelet_layout *w, uint8_t byte) {
    if (w->used == w->capacity) flush(w);
    w->block[w->used++] = byte;
}

/* A newline and 126 spaces: the line break of any depth up to 63 is one copy of its start. */
static const uint8_t indent_text[127] = {
    '\n', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
    ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
    ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
    ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
    ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
    ' ', ' '};

static void line_break(bracelet_layout *w, int64_t depth) {
    if (depth <= 63) {
        copy(w, indent_text, (size_t)(1 + 2 * depth));
        return;
    }
    copy(w, indent_text, 1);
    for (int64_t spaces = 2 * depth; spaces > 0; spaces -= 126) copy(w, indent_text + 1, spaces < 126 ? (size_t)spaces : 126);
}

/* Whether a byte outside a string changes the layout (brackets, comma, colon, quote). */
static inline int needs_layout(uint8_t b) {
    return b == '"' || b == '{' || b == '}' || b == '[' || b == ']' || b == ',' || b == ':';
}

/* One step of the byte-at-a-time layout at `p` (before `end`): a string's bytes up to and with its
 * closing quote, a run of a number or literal, or one structural byte. Returns the next byte. */
static const uint8_t *step(bracelet_layout *w, const uint8_t *p, const uint8_t *end) {
    if (w->in_string) {
        const uint8_t *q = p;
        while (q < end) {
            if (w->escaping) {
                w->escaping = 0;
                q++;
                continue;
            }
            uint8_t b = *q++;
            if (b == '\\') {
                w->escaping = 1;
            } else if (b == '"') {
                w->in_string = 0;
                break;
            }
        }
        copy(w, p, (size_t)(q - p));
        return q;
    }
    uint8_t b = *p++;
    if (w->pending_close) {
        uint8_t close = w->pending_close;
        w->pending_close = 0;
        if (b == close) {
            put(w, '\n');
            line_break(w, w->depth);
            put(w, close);
            return p;
        }
        w->depth += 1;
        line_break(w, w->depth);
    }
    switch (b) {
    case '"':
        put(w, b);
        w->in_string = 1;
        break;
    case '{':
        put(w, b);
        w->pending_close = '}';
        break;
    case '[':
        put(w, b);
        w->pending_close = ']';
        break;
    case '}':
    case ']':
        w->depth = w->depth > 0 ? w->depth - 1 : 0;
        line_break(w, w->depth);
        put(w, b);
        break;
    case ',':
        put(w, b);
        line_break(w, w->depth);
        break;
    case ':':
        put(w, ' ');
        put(w, ':');
        put(w, ' ');
        break;
    default: {
        const uint8_t *q = p;
        while (q < end && !needs_layout(*q)) q++;
        copy(w, p - 1, (size_t)(q - p + 1));
        p = q;
    }
    }
    return p;
}

/* The most a block of 64 bytes can lay out to at nesting `depth`: every byte a bracket that opens
 * a level (a byte, a newline, two spaces a level), plus room for the 32-byte stores below. */
static inline size_t block_bound(int64_t depth) {
    return (size_t)64 * (size_t)(2 + 2 * (depth + 64)) + 64;
}

/* 16 or 32 bytes stored at once where fewer are meant: the bytes past `count` are overwritten by
 * what follows or never handed over (the caller made room for the whole store). */
static inline void store_run(uint8_t *out, const uint8_t *from, size_t count) {
    /* memcpy_inline: a plain memcpy of 16 or 32 here is merged into one call of libc's memcpy
     * with a size chosen at run time, which cost more than the rest of the block. */
    if (count <= 16) {
        __builtin_memcpy_inline(out, from, 16);
    } else if (count <= 32) {
        __builtin_memcpy_inline(out, from, 32);
    } else {
        memcpy(out, from, count);
    }
}

/* A newline and the indentation of `depth`: up to depth 15 one 32-byte store (the bytes past the
 * indentation are overwritten by what follows or never handed over). */
static inline uint8_t *store_break(uint8_t *out, int64_t depth) {
    if (depth < 16) {
        __builtin_memcpy_inline(out, indent_text, 32);
    } else {
        out[0] = '\n';
        memset(out + 1, ' ', (size_t)(2 * depth));
    }
    return out + 1 + 2 * depth;
}

/* Lays out the 64 bytes at `p` (at least 96 readable from `p`, starting outside a string) when
 * they hold no backslash and the block has room for `block_bound`, flushing it first if that makes
 * the room. Returns how many bytes it took: 64, or 65 when the block ended on an opening bracket
 * whose empty close it took; 0 when the bytes must go byte by byte (a backslash, a small block). */
static size_t layout_block(bracelet_layout *w, const uint8_t *p) {
    bytes64 v;
    memcpy(&v, p, 64);
    if (MATCHES(v, '\\')) return 0;
    size_t bound = block_bound(w->depth);
    if (w->capacity - w->used < bound) flush(w);
    if (w->capacity - w->used < bound) return 0;
    uint64_t quotes = MATCHES(v, '"');
    uint64_t inside = prefix_xor(quotes);
    uint64_t structural = (MATCHES(v, '{') | MATCHES(v, '}') | MATCHES(v, '[') | MATCHES(v, ']') |
                           MATCHES(v, ',') | MATCHES(v, ':')) & ~inside;
    uint8_t *out = w->block + w->used;
    int64_t depth = w->depth;
    size_t last = 0;
    while (structural) {
        size_t at = (size_t)__builtin_ctzll(structural);
        structural &= structural - 1;
        store_run(out, p + last, at - last);
        out += at - last;
        uint8_t b = p[at];
        last = at + 1;
        switch (b) {
        case '{':
        case '[': {
            uint8_t close = b == '{' ? '}' : ']';
            *out++ = b;
            if (p[at + 1] == close) {
                /* The empty container: its close is taken here, not as a structural byte. */
                *out++ = '\n';
                out = store_break(out, depth);
                *out++ = close;
                if (at + 1 < 64) structural &= ~((uint64_t)1 << (at + 1));
                last = at + 2;
            } else {
                depth += 1;
                out = store_break(out, depth);
            }
            break;
        }
        case '}':
        case ']':
            depth = depth > 0 ? depth - 1 : 0;
            out = store_break(out, depth);
            *out++ = b;
            break;
        case ',':
            *out++ = ',';
            out = store_break(out, depth);
            break;
        default: /* ':' */
            out[0] = ' ';
            out[1] = ':';
            out[2] = ' ';
            out += 3;
        }
    }
    if (last < 64) {
        memcpy(out, p + last, 64 - last);
        out += 64 - last;
        last = 64;
    }
    w->used = (size_t)(out - w->block);
    w->depth = depth;
    /* A string still open at the block's end goes on byte by byte. */
    w->in_string = __builtin_popcountll(quotes) & 1;
    return last;
}

void bracelet_layout_write(bracelet_layout *w, const uint8_t *bytes, size_t count) {
    if (count == 0) return;
    const uint8_t *p = bytes, *end = bytes + count;
    while (p < end) {
        /* Outside a string (an escape is only ever pending inside one), nothing pending. */
        if (!w->in_string && !w->pending_close && end - p >= 96) {
            size_t taken = layout_block(w, p);
            if (taken > 0) {
                p += taken;
                continue;
            }
            const uint8_t *stop = p + 64;
            while (p < stop) p = step(w, p, end);
            continue;
        }
        p = step(w, p, end);
    }
}

void bracelet_layout_finish(bracelet_layout *w) {
    if (w->pending_close) {
        w->pending_close = 0;
        w->depth += 1;
        line_break(w, w->depth);
    }
    flush(w);
}

void bracelet_layout_flush(bracelet_layout *w) {
    flush(w);
}
