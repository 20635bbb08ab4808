#!/usr/bin/env python3
"""Rewrites traces with 4 KiB chunks where their events fit, for fuzzing.

The library writes 16 KiB chunks, mostly empty in small traces; the fuzzer
runs several times faster on the same events in 4 KiB chunks. The result is
a valid trace (trace_format.h): same header and events, chunk_size 4096,
chunk indexes and the footer's place rewritten.

    compact_seeds.py TRACE... (each rewritten as TRACE.4k when it can be)
"""
import struct
import sys

SMALL = 4096
CHUNK_HEADER = 32


def compact(path):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    header_size, chunk_size = struct.unpack_from("<II", data, 16)
    state = struct.unpack_from("<I", data, 80)[0]
    chunks = struct.unpack_from("<Q", data, 88)[0]
    footer_offset, footer_size = struct.unpack_from("<QQ", data, 104)
    out = bytearray(data[:header_size])
    n = 0
    skip = range(0)
    if state == 1:
        first = (footer_offset - header_size) // chunk_size
        skip = range(first, first + (footer_size + chunk_size - 1) // chunk_size)
    for i in range(chunks):
        if i in skip:
            continue
        at = header_size + i * chunk_size
        magic, tid, index, seq, used, flags = struct.unpack_from("<IIIIII", data, at)
        if magic == 0:
            continue
        if flags:
            return False  # rows chunks (5.0): the footer names them by index
        if used > SMALL - CHUNK_HEADER:
            return False
        chunk = bytearray(data[at: at + CHUNK_HEADER + used])
        struct.pack_into("<I", chunk, 8, n)
        out += chunk + bytes(SMALL - len(chunk))
        n += 1
    if state == 1:
        footer = data[footer_offset: footer_offset + footer_size]
        struct.pack_into("<QQ", out, 104, len(out), footer_size)
        k = (footer_size + SMALL - 1) // SMALL
        out += footer + bytes(k * SMALL - footer_size)
        n += k
    struct.pack_into("<I", out, 20, SMALL)
    struct.pack_into("<Q", out, 88, n)
    with open(path + ".4k", "wb") as f:
        f.write(out)
    return True


if __name__ == "__main__":
    for p in sys.argv[1:]:
        compact(p)
