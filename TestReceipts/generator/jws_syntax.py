"""The jws/ tokens that cannot be read (exit 2): not three strict base64url parts, bytes that are
not UTF-8, JSON that is not JSON or not an object, a key twice, nesting past 64, a token past
1 MiB. Each is a genuinely signed token changed in one way, so that a lenient reader would
verify it: the point is that it must not."""

from __future__ import annotations

import base64
import json

from .jsontext import Members, Raw, encode, nested_arrays
from .jws import join
from .jws_fixture import JWSKit, TokenList, probe
from .jws_outcome import fails
from .jws_reading import first_dup, header, parts_of, payload_text, seg, sig
from .jws_rules import MAX_SIZE, depth
from .jws_valid_edges import DEPTH, MIB, sized_token
from .storekit2 import edit, plain_transaction, transaction

SYNTAX = TokenList("syntax", "Tokens that cannot be read (exit 2)",
                   "A valid token changed in one way after signing (or signed with the defect inside), so that "
                   "only a lenient reader would verify it. The base is a plain Sandbox transaction signed by jws-leaf.")
token = SYNTAX.token

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def segments(kit: JWSKit) -> list[str]:
    """header, payload, signature of the base token."""
    return kit.signed(plain_transaction()).segments


def malformed(file: str, what: str):
    return token(file, what, "transaction", fails("malformedToken"))


# --- parts

@malformed("parts-two.jws", "Header and payload only: two parts.")
@probe(lambda d: len(parts_of(d)) == 2)
def parts_two(kit: JWSKit) -> str:
    return join(*segments(kit)[:2])


@malformed("parts-trailing-dot.jws", "A valid token and a final `.`: four parts, the last empty.")
@probe(lambda d: len(parts_of(d)) == 4 and parts_of(d)[3] == "")
def parts_trailing_dot(kit: JWSKit) -> str:
    return join(*segments(kit), "")


@malformed("parts-four.jws", "A valid token and a second copy of its signature: four parts.")
@probe(lambda d: len(parts_of(d)) == 4 and parts_of(d)[2] == parts_of(d)[3])
def parts_four(kit: JWSKit) -> str:
    h, p, s = segments(kit)
    return join(h, p, s, s)


# --- base64url

@malformed("padding.jws", "The signature with its `==` padding (86 characters for 64 bytes).")
@probe(lambda d: parts_of(d)[2].endswith("=="))
def padding(kit: JWSKit) -> str:
    h, p, s = segments(kit)
    assert len(s) % 4 == 2
    return join(h, p, s + "==")


def replaced_in_payload(kit: JWSKit, old: str, new: str) -> str:
    """A token whose payload has an unknown member `note` of `>>>???` (base64url writes `>` in the
    last place of a group as `-` and `?` as `_`), with `old` turned into `new` in the payload part:
    the same bytes in standard base64."""
    h, p, s = kit.signed(edit(plain_transaction(), note=">>>???")).segments
    assert old in p
    return join(h, p.replace(old, new), s)


@malformed("base64-plus.jws", "The payload part in standard base64's `+` for base64url's `-` (its unknown member "
           "`note: \">>>???\"` makes both appear): the same bytes to a lenient decoder.")
@probe(lambda d: "+" in parts_of(d)[1] and "-" not in parts_of(d)[1])
def base64_plus(kit: JWSKit) -> str:
    return replaced_in_payload(kit, "-", "+")


@malformed("base64-slash.jws", "The payload part with `/` for `_` (same payload as base64-plus.jws).")
@probe(lambda d: "/" in parts_of(d)[1] and "_" not in parts_of(d)[1])
def base64_slash(kit: JWSKit) -> str:
    return replaced_in_payload(kit, "_", "/")


@malformed("space-inside.jws", "A space in the middle of the payload part.")
@probe(lambda d: " " in parts_of(d)[1])
def space_inside(kit: JWSKit) -> str:
    h, p, s = segments(kit)
    return join(h, p[:40] + " " + p[40:], s)


@malformed("line-break-inside.jws", "The signature wrapped after 64 characters with a line feed (as base64 tools "
           "wrap).")
@probe(lambda d: "\n" in parts_of(d)[2])
def line_break_inside(kit: JWSKit) -> str:
    h, p, s = segments(kit)
    return join(h, p, s[:64] + "\n" + s[64:])


@malformed("crlf-before-dot.jws", "CR LF between the header part and the first `.`.")
@probe(lambda d: parts_of(d)[0].endswith("\r\n"))
def crlf_before_dot(kit: JWSKit) -> str:
    h, p, s = segments(kit)
    return h + "\r\n." + p + "." + s


@malformed("zero-width-space.jws", "U+200B (zero width space, invisible) in the middle of the payload part.")
@probe(lambda d: "\u200b" in d.decode())
def zero_width_space(kit: JWSKit) -> str:
    h, p, s = segments(kit)
    return join(h, p[:40] + "\u200b" + p[40:], s)


@malformed("nul-after-token.jws", "A valid token followed by a NUL byte (then the newline): NUL is not whitespace.")
@probe(lambda d: d.endswith(b"\x00\n"))
def nul_after(kit: JWSKit) -> str:
    return join(*segments(kit)) + "\x00"


@malformed("part-length.jws", "The signature part with `AAA` appended: 89 characters, a length (1 mod 4) no "
           "base64 text has.")
@probe(lambda d: len(parts_of(d)[2]) % 4 == 1)
def part_length(kit: JWSKit) -> str:
    h, p, s = segments(kit)
    return join(h, p, s + "AAA")


@malformed("non-canonical-bits.jws", "The signature's last character with one of its 4 unused low bits set: a "
           "lenient decoder reads the same 64 bytes from another token string.")
@probe(lambda d: parts_of(d)[2] != base64.urlsafe_b64encode(sig(d)).rstrip(b"=").decode())
def non_canonical(kit: JWSKit) -> str:
    h, p, s = segments(kit)
    last = ALPHABET.index(s[-1])
    assert last & 0x0F == 0
    return join(h, p, s[:-1] + ALPHABET[last | 1])


# --- bytes that are not UTF-8

def with_bytes(kit: JWSKit, where: str, raw: bytes) -> str:
    """The base payload (or header) with the placeholder string's content replaced by `raw`,
    then signed: the signature is valid over the bad bytes."""
    marker = "@@RAW@@"
    payload, header = plain_transaction(), kit.header()
    if where == "payload":
        payload = encode(edit(payload, productId=marker)).replace(marker.encode(), raw)
    else:
        header = encode(edit(header, kid=marker)).replace(marker.encode(), raw)
    return kit.token(payload, header)


@malformed("utf8-latin1-payload.jws", "The payload's productId `caf\\xE9` in Latin-1 (byte E9 alone): not UTF-8.")
@probe(lambda d: b"caf\xe9\"" in payload_text(d))
def utf8_latin1(kit: JWSKit) -> str:
    return with_bytes(kit, "payload", b"caf\xe9")


@malformed("utf8-overlong-payload.jws", "The payload's productId holding C0 AF, an overlong `/`: not UTF-8.")
@probe(lambda d: b"\xc0\xaf" in payload_text(d))
def utf8_overlong(kit: JWSKit) -> str:
    return with_bytes(kit, "payload", b"com.example\xc0\xafpro")


@malformed("utf8-surrogate-payload.jws", "The payload's productId holding ED A0 80, a UTF-16 surrogate encoded as "
           "UTF-8 (CESU-8): not UTF-8.")
@probe(lambda d: b"\xed\xa0\x80" in payload_text(d))
def utf8_surrogate(kit: JWSKit) -> str:
    return with_bytes(kit, "payload", b"com.example\xed\xa0\x80")


@malformed("utf8-header.jws", "The header's kid holding the byte FF: not UTF-8.")
@probe(lambda d: b"\xff" in seg(d, 0))
def utf8_header(kit: JWSKit) -> str:
    return with_bytes(kit, "header", b"\xff")


# --- not JSON, not an object

def invalid_json(file: str, what: str):
    return token(file, what, "transaction", fails("invalidJSON"))


@invalid_json("json-header-trailing-comma.jws", "The header object ends in `,}`.")
@probe(lambda d: seg(d, 0).endswith(b",}"))
def json_header_comma(kit: JWSKit) -> str:
    header = encode(kit.header())
    return kit.token(plain_transaction(), header[:-1] + b",}")


@invalid_json("json-payload-nan.jws", "The payload's price is `NaN`.")
@probe(lambda d: b'"price":NaN' in payload_text(d))
def json_nan(kit: JWSKit) -> str:
    return kit.token(edit(plain_transaction(), price=Raw("NaN")))


@invalid_json("json-payload-bom.jws", "The payload starts with a UTF-8 byte order mark (EF BB BF), which RFC 8259 "
              "forbids in JSON text.")
@probe(lambda d: payload_text(d).startswith(b"\xef\xbb\xbf{"))
def json_bom(kit: JWSKit) -> str:
    return kit.token(b"\xef\xbb\xbf" + encode(plain_transaction()))


@invalid_json("json-payload-trailing.jws", "The payload object followed by ` {}`: bytes after the JSON value.")
@probe(lambda d: payload_text(d).endswith(b"} {}"))
def json_trailing(kit: JWSKit) -> str:
    return kit.token(encode(plain_transaction()) + b" {}")


@token("json-payload-array.jws", "The payload is a JSON array holding the transaction object.", "transaction",
       fails("malformedToken", "a payload must be an object"))
@probe(lambda d: isinstance(json.loads(payload_text(d)), list))
def json_array(kit: JWSKit) -> str:
    return kit.token([plain_transaction()])


@token("json-header-string.jws", "The header is the JSON string `\"ES256\"`.", "transaction",
       fails("malformedToken", "a header must be an object"))
@probe(lambda d: json.loads(seg(d, 0)) == "ES256")
def json_header_string(kit: JWSKit) -> str:
    return kit.token(plain_transaction(), "ES256")


# --- a key twice: readers disagree on which one wins

def duplicate(file: str, what: str):
    return token(file, what, "transaction", fails("duplicateKey"))


@duplicate("duplicate-header-alg.jws", "The header has `alg` twice: `ES256`, then `none`.")
@probe(lambda d: first_dup(seg(d, 0)) == ["alg"])
def duplicate_header(kit: JWSKit) -> str:
    x5c = kit.x5c("jws-leaf", "jws-intermediate", "jws-root")
    return kit.token(plain_transaction(), Members([("alg", "ES256"), ("alg", "none"), ("x5c", x5c)]))


@duplicate("duplicate-header-escaped.jws", "The header has `alg` and `\"\\u0061lg\"` (the same key escaped), "
           "both `ES256`.")
@probe(lambda d: first_dup(seg(d, 0)) == ["alg"] and b'"\\u0061lg"' in seg(d, 0))
def duplicate_header_escaped(kit: JWSKit) -> str:
    x5c = kit.x5c("jws-leaf", "jws-intermediate", "jws-root")
    return kit.token(plain_transaction(), Members([("alg", "ES256"), (Raw('"\\u0061lg"'), "ES256"), ("x5c", x5c)]))


@duplicate("duplicate-payload-bundle-id.jws", "The payload has `bundleId` twice: the expected one, then "
           "`com.example.other` (Foundation keeps one of them silently).")
@probe(lambda d: first_dup(payload_text(d)) == ["bundleId"])
def duplicate_payload(kit: JWSKit) -> str:
    return kit.token(Members([*plain_transaction().items(), ("bundleId", "com.example.other")]))


@duplicate("duplicate-payload-escaped.jws", "The payload has `bundleId` and `\"\\u0062undleId\"` "
           "(`com.example.other`): equal after unescaping.")
@probe(lambda d: first_dup(payload_text(d)) == ["bundleId"]
       and b'"\\u0062undleId"' in payload_text(d))
def duplicate_escaped(kit: JWSKit) -> str:
    return kit.token(Members([*plain_transaction().items(), (Raw('"\\u0062undleId"'), "com.example.other")]))


@duplicate("duplicate-nested-object.jws", "commitmentInfo has `commitmentPrice` twice (119880, then 0).")
@probe(lambda d: first_dup(payload_text(d)) == ["commitmentPrice"])
def duplicate_nested(kit: JWSKit) -> str:
    payload = transaction()
    payload["commitmentInfo"] = Members([*payload["commitmentInfo"].items(), ("commitmentPrice", 0)])
    return kit.token(payload)


@duplicate("duplicate-in-array.jws", "advancedCommerceInfo.items[0].offer has `price` twice: an object in an "
           "array in an object.")
@probe(lambda d: first_dup(payload_text(d)) == ["price"])
def duplicate_in_array(kit: JWSKit) -> str:
    payload = transaction()
    info = dict(payload["advancedCommerceInfo"])
    item = dict(info["items"][0])
    item["offer"] = Members([*item["offer"].items(), ("price", 0)])
    info["items"] = [item]
    return kit.token(edit(payload, advancedCommerceInfo=info))


# --- limits

@invalid_json("depth-65.jws", f"The payload with an unknown member holding {DEPTH} nested arrays: {DEPTH + 1} "
              "levels, one past the limit.")
@probe(lambda d: depth(json.loads(payload_text(d))) == 65)
def depth_65(kit: JWSKit) -> str:
    return kit.token(edit(plain_transaction(), deep=nested_arrays(DEPTH)))


@invalid_json("depth-65-header.jws", f"The header with an unknown member holding {DEPTH} nested arrays.")
@probe(lambda d: depth(header(d)) == 65)
def depth_65_header(kit: JWSKit) -> str:
    return kit.token(plain_transaction(), kit.header(deep=nested_arrays(DEPTH)))


@token("size-over-limit.jws", "A valid transaction token of 1 MiB + 1 byte (1048577 bytes, no newline in the "
       "file); its signature is valid.", "transaction", fails("tooLarge", "refused before it is split"))
@probe(lambda d: len(d) == MAX_SIZE + 1)
def size_over(kit: JWSKit) -> bytes:
    return sized_token(kit, MIB + 1)

