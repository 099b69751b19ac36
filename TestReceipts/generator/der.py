"""A minimal DER / BER encoder, and a reader just good enough to copy fields out of certificates.

Hand-written on purpose (not cryptography's pkcs7 builder): many fixtures are malformed on
purpose, and the exact byte layout matters (unsorted SETs, certificate order, BER indefinite
lengths, ...).
"""

from __future__ import annotations


def der_len(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def tlv(tag: int, content: bytes) -> bytes:
    return bytes([tag]) + der_len(len(content)) + content


def ber_indef(tag: int, content: bytes) -> bytes:
    """Constructed encoding with indefinite length (BER): tag 80 ... 00 00."""
    return bytes([tag, 0x80]) + content + b"\x00\x00"


def integer(n: int) -> bytes:
    if n < 0:
        raise ValueError("only non-negative INTEGERs are needed here")
    return tlv(0x02, n.to_bytes(n.bit_length() // 8 + 1, "big"))


def oid(dotted: str) -> bytes:
    arcs = [int(x) for x in dotted.split(".")]
    body = bytearray([40 * arcs[0] + arcs[1]])
    for arc in arcs[2:]:
        chunk = [arc & 0x7F]
        arc >>= 7
        while arc:
            chunk.append(0x80 | (arc & 0x7F))
            arc >>= 7
        body += bytes(reversed(chunk))
    return tlv(0x06, bytes(body))


NULL = b"\x05\x00"
TRUE = tlv(0x01, b"\xff")


def octet(b: bytes) -> bytes:
    return tlv(0x04, b)


def utf8(s: str) -> bytes:
    return tlv(0x0C, s.encode("utf-8"))


def ia5(s: str) -> bytes:
    return tlv(0x16, s.encode("ascii"))


def utctime(s: str) -> bytes:
    return tlv(0x17, s.encode("ascii"))


def bit_string(b: bytes) -> bytes:
    """A BIT STRING with no unused bits (signatures, keys)."""
    return tlv(0x03, b"\x00" + b)


def seq(*items: bytes) -> bytes:
    return tlv(0x30, b"".join(items))


def set_unsorted(*items: bytes) -> bytes:
    """SET / SET OF with the elements kept in the given order."""
    return tlv(0x31, b"".join(items))


def der_set_of_sorted_content(items: list[bytes]) -> bytes:
    """Content octets of a DER SET OF (X.690 11.6: ascending, zero padded)."""
    width = max((len(i) for i in items), default=0)
    return b"".join(sorted(items, key=lambda i: i.ljust(width, b"\x00")))


def explicit(n: int, content: bytes) -> bytes:
    return tlv(0xA0 | n, content)


def read_tlv(buf: bytes, off: int = 0) -> tuple[int, int, int]:
    """Return (tag, content_start, end) of the TLV starting at off."""
    tag = buf[off]
    first = buf[off + 1]
    if first < 0x80:
        return tag, off + 2, off + 2 + first
    n = first & 0x7F
    length = int.from_bytes(buf[off + 2 : off + 2 + n], "big")
    start = off + 2 + n
    return tag, start, start + length


def children(buf: bytes, off: int = 0) -> list[bytes]:
    """Raw TLVs inside the constructed TLV at off."""
    _, pos, end = read_tlv(buf, off)
    out = []
    while pos < end:
        _, _, nxt = read_tlv(buf, pos)
        out.append(buf[pos:nxt])
        pos = nxt
    return out
