"""What format one value is in, judged from its first bytes alone (no I/O, nothing printed).

The names are short and stable: they become a column. Checks run from the strongest evidence to the
weakest: magic numbers first (compression frames, Java, pickle, Ruby Marshal), then the serializations
a parser can confirm (PHP ``serialize``, JSON, MessagePack, zlib), then the text classes (number,
base64, text), then Protobuf only where the input reads as its wire format to the end (or to a cut
that falls inside a nested message or a string), then ``binary``.

A value may be cut at ``HEAD_BYTES``: a cut document is recognised when everything up to the cut
parses and the parse stops only for want of more bytes. Only cut data gets that allowance, so a short
value that merely starts like a document is text or binary.
"""

import json
import pickletools
import re
import warnings
import zlib

import msgpack
import zstandard

from rdbscope.values.sample import HEAD_BYTES

EMPTY = "empty"
JSON = "json"
MSGPACK = "msgpack"
PICKLE = "pickle"  # with its protocol: pickle-2 ... pickle-5
PHP_SERIALIZE = "php-serialize"
JAVA_SERIALIZED = "java-serialized"
RUBY_MARSHAL = "ruby-marshal"
GZIP = "gzip"
ZLIB = "zlib"
ZSTD = "zstd"
LZ4 = "lz4"
SNAPPY = "snappy"
PROTOBUF = "protobuf"
BASE64 = "base64"
NUMBER = "number"
TEXT = "text"
BINARY = "binary"

#: Every name :func:`value_format` can return (pickle's with each protocol it recognises).
FORMATS = (EMPTY, JSON, MSGPACK, *(f"{PICKLE}-{p}" for p in range(2, 6)), PHP_SERIALIZE, JAVA_SERIALIZED,
           RUBY_MARSHAL, GZIP, ZLIB, ZSTD, LZ4, SNAPPY, PROTOBUF, BASE64, NUMBER, TEXT, BINARY)

_GZIP_MAGIC = b"\x1f\x8b\x08"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_LZ4_FRAME_MAGIC = b"\x04\x22\x4d\x18"
# The stream identifier chunk every framed Snappy stream opens with (framing_format.txt, section 4.1).
_SNAPPY_STREAM = b"\xff\x06\x00\x00sNaPpY"
# STREAM_MAGIC, STREAM_VERSION, then a TC_* type code (java.io.ObjectStreamConstants).
_JAVA_MAGIC = b"\xac\xed\x00\x05"
_JAVA_TYPE_CODES = range(0x70, 0x7F)
# Marshal 4.8, then a type byte (marshal.c: TYPE_NIL '0' ... TYPE_LINK '@').
_RUBY_MAGIC = b"\x04\x08"
_RUBY_TYPES = frozenset(b'0TFi:;"I[{}flo/SuUeCcmMd@')

# PHP serialize: a container or object is enough evidence; a scalar must be the whole value.
_PHP_CONTAINER = re.compile(rb'(a:\d+:\{(\}|[isdbN])|O:\d+:"|C:\d+:")')
_PHP_SCALAR = re.compile(rb'(i:-?\d+;|d:-?(\d+(\.\d*)?([eE][+-]?\d+)?|INF|NAN);|b:[01];|N;)\Z')
_PHP_STRING = re.compile(rb's:(\d+):"')

_NUMBER = re.compile(rb"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z")
_BASE64 = re.compile(rb"[A-Za-z0-9+/]+={0,2}\Z|[A-Za-z0-9_-]+={0,2}\Z")
#: Base64 shorter than this is too easily a word or an identifier.
_BASE64_MIN = 20
# C0 controls other than tab, newline and carriage return (and DEL) never appear in text.
_CONTROL = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
# What a JSON parse may stop on at a cut: the start of a number or literal that the cut split.
_JSON_CUT_TAIL = re.compile(r"\s*([-+.eE0-9]*|t(r(ue?)?)?|f(a(l(se?)?)?)?|n(u(ll?)?)?)\Z")

#: Opcodes a cut pickle must show before the cut.
_PICKLE_MIN_CUT_OPS = 4
#: Opcodes read at most: past them a pickle's opening is evidence enough.
_PICKLE_OPS_READ = 64
# Pickle closes a frame once it holds 64 KiB (pickle.py, _FRAME_SIZE_TARGET) and writes larger data outside
# frames: a far larger frame is arbitrary bytes.
_PICKLE_MAX_FRAME = 1 << 20
# What pickletools says when the bytes end before the pickle does.
_PICKLE_RAN_OUT = ("remain", "exhausted before seeing STOP", "not enough data", "no newline found")
_MSGPACK_CONTAINERS = frozenset([*range(0x80, 0xA0), 0xDC, 0xDD, 0xDE, 0xDF])
# From the MessagePack spec: head -> (bytes of its length, bytes before the payload) for bin, ext and str;
# head -> payload bytes for numbers and fixext (with its type byte); head -> (bytes of its count, is a map).
_MSGPACK_SIZED = {0xC4: (1, 0), 0xC5: (2, 0), 0xC6: (4, 0), 0xC7: (1, 1), 0xC8: (2, 1), 0xC9: (4, 1),
                  0xD9: (1, 0), 0xDA: (2, 0), 0xDB: (4, 0)}
_MSGPACK_FIXED = {0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8,
                  0xD4: 2, 0xD5: 3, 0xD6: 5, 0xD7: 9, 0xD8: 17}
_MSGPACK_COUNTED = {0xDC: (2, False), 0xDD: (4, False), 0xDE: (2, True), 0xDF: (4, True)}
_MSGPACK_MAPS = frozenset([*range(0x80, 0x90), 0xDE, 0xDF])
_MSGPACK_MAX_DEPTH = 64
#: Items of one container read at most in a cut document.
_MSGPACK_ITEMS_READ = 256
# str heads -> bytes of their length.
_MSGPACK_STR_HEADS = {**{head: 0 for head in range(0xA0, 0xC0)}, 0xD9: 1, 0xDA: 2, 0xDB: 4}
#: Complete objects a cut MessagePack document must show before the cut.
_MSGPACK_MIN_CUT_OBJECTS = 8
#: A MessagePack document shorter than this is too easily a few arbitrary bytes.
_MSGPACK_MIN = 4
#: Fields a Protobuf message needs before its wire format counts as evidence.
_PROTOBUF_MIN_FIELDS = 2
_PROTOBUF_MAX_FIELD = 1 << 16
# Messages nested this deep where the cut fell (each level reads only its own fields: linear in all).
_PROTOBUF_MAX_DEPTH = 64


def value_format(data: bytes, cut: bool | None = None) -> str:
    """The format of a value whose first bytes are ``data``, one of :data:`FORMATS`.

    ``cut``: whether ``data`` is only the first bytes of a longer value; by default, when it is
    ``HEAD_BYTES`` long or more (the sample cuts values there).
    """
    if cut is None:
        cut = len(data) >= HEAD_BYTES
    if not data:
        return EMPTY
    for check in (_magic_format, _pickle_format):
        found = check(data, cut)
        if found:
            return found
    if _is_php_serialize(data, cut):
        return PHP_SERIALIZE
    if _is_json(data, cut):
        return JSON
    if _is_msgpack(data, cut):
        return MSGPACK
    if _is_zlib(data, cut):
        return ZLIB
    if _NUMBER.match(data):
        return NUMBER
    if _utf8(data, cut) is not None and not _has_control(data):
        return BASE64 if _is_base64(data, cut) else TEXT
    if _is_protobuf(data, cut):
        return PROTOBUF
    return BINARY


def _has_control(data):
    return len(data.translate(None, _CONTROL)) != len(data)


def _magic_format(data, cut):
    if data.startswith(_GZIP_MAGIC) and _inflates(data, cut, wbits=31):
        return GZIP
    if data.startswith(_ZSTD_MAGIC) and _zstd_frame(data):
        return ZSTD
    # LZ4 frame FLG byte: version 01 in its top two bits (lz4 frame format, section "Frame descriptor").
    if data.startswith(_LZ4_FRAME_MAGIC) and len(data) > 4 and data[4] >> 6 == 1:
        return LZ4
    if data.startswith(_SNAPPY_STREAM):
        return SNAPPY
    if data.startswith(_JAVA_MAGIC) and len(data) > 4 and data[4] in _JAVA_TYPE_CODES:
        return JAVA_SERIALIZED
    if data.startswith(_RUBY_MAGIC) and len(data) > 2 and data[2] in _RUBY_TYPES:
        return RUBY_MARSHAL
    return None


def _zstd_frame(data):
    try:
        zstandard.get_frame_parameters(data)
    except zstandard.ZstdError:
        return False
    return True


def _inflates(data, cut, wbits):
    """Whether ``data`` inflates without error (to its end, unless it is cut)."""
    inflater = zlib.decompressobj(wbits)
    try:
        # Bounded output: a valid stream of any ratio shows itself in its first bytes.
        out = inflater.decompress(data, 1 << 16)
    except zlib.error:
        return False
    if not out:
        return False
    return cut or inflater.unconsumed_tail != b"" or (inflater.eof and not inflater.unused_data)


def _is_zlib(data, cut):
    # RFC 1950: CM 8 (deflate), CINFO at most 7, and the two header bytes a multiple of 31.
    if len(data) < 3 or data[0] & 0x0F != 8 or data[0] >> 4 > 7 or (data[0] << 8 | data[1]) % 31:
        return False
    return _inflates(data, cut, wbits=15)


def _pickle_format(data, cut):
    # Protocol 2 and later open with PROTO and the protocol number (pickletools: "proto").
    if len(data) < 3 or data[0] != 0x80 or not 2 <= data[1] <= 5:
        return None
    ops = 0
    try:
        with warnings.catch_warnings():  # pickletools warns of odd escapes in protocol 0 strings
            warnings.simplefilter("ignore")
            for op, arg, pos in pickletools.genops(data):
                ops += 1
                if op.name == "FRAME" and arg > _PICKLE_MAX_FRAME:
                    return None
                if op.name == "STOP":
                    complete = pos + 1 == len(data)
                    return f"{PICKLE}-{data[1]}" if complete else None
                if ops == _PICKLE_OPS_READ:
                    # Enough opcodes read for evidence (reading them all is slow); a whole pickle ends in STOP.
                    return f"{PICKLE}-{data[1]}" if cut or data.endswith(b".") else None
    except ValueError as error:
        # A cut pickle runs out of bytes ("expected 5000 bytes ..., but only 4073 remain"); arbitrary bytes
        # soon meet an opcode that does not exist.
        ran_out = any(words in str(error) for words in _PICKLE_RAN_OUT)
        return f"{PICKLE}-{data[1]}" if cut and ran_out and ops >= _PICKLE_MIN_CUT_OPS else None
    return f"{PICKLE}-{data[1]}" if cut and ops >= _PICKLE_MIN_CUT_OPS else None


def _is_php_serialize(data, cut):
    if _PHP_CONTAINER.match(data) or _PHP_SCALAR.match(data):
        return True
    string = _PHP_STRING.match(data)
    if not string:
        return False
    end = string.end() + int(string.group(1))
    return data[end:] == b'";' or (cut and end >= len(data))


def _utf8(data, cut):
    """``data`` as text, or None. A cut value may end inside a character."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        if cut and error.reason == "unexpected end of data" and error.start >= len(data) - 3:
            return data[:error.start].decode("utf-8")
        return None


def _is_json(data, cut):
    """A JSON object or array (a bare number, string or literal is not evidence enough)."""
    start = data.lstrip()[:1]
    if start not in (b"{", b"["):
        return False
    text = _utf8(data, cut)
    if text is None:
        return False
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        if not cut:
            return False
        # A cut document fails only at its end: in a string that the cut left open, or right where
        # the bytes stop (perhaps inside a number or a literal).
        return error.msg.startswith("Unterminated string") or bool(_JSON_CUT_TAIL.match(text, error.pos))
    except RecursionError:
        return cut
    return True


def _is_msgpack(data, cut):
    """A MessagePack map or array read to its end (or to the cut) by msgpack itself: its strings UTF-8, the
    keys of its maps strings or integers."""
    if len(data) < _MSGPACK_MIN or data[0] not in _MSGPACK_CONTAINERS:
        return False
    try:
        document = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except msgpack.ExtraData:
        return False
    except (ValueError, TypeError):  # cut short, not MessagePack, or an unhashable key
        # Arbitrary bytes often claim a length past their end: a document read only to a cut must show more.
        objects = _msgpack_cut(data, 0) if cut else None
        return objects is not None and objects >= _MSGPACK_MIN_CUT_OBJECTS
    if isinstance(document, dict) and not all(isinstance(key, (str, bytes, int)) for key in document):
        return False
    return _objects_in(document, 2) >= 2


def _msgpack_cut(data, depth):
    """How many objects the container at the start of ``data``, cut short, shows: itself, its items read
    whole, and those of the item the cut fell in. None where it is not MessagePack, or ends before the cut."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(data)
    is_map = data[0] in _MSGPACK_MAPS
    try:
        count = unpacker.read_map_header() * 2 if is_map else unpacker.read_array_header()
    except msgpack.OutOfData:
        return 0
    objects = 1
    for index in range(count):
        if index == _MSGPACK_ITEMS_READ:
            return objects  # evidence enough; reading every item of a long array of small ones is slow
        start = unpacker.tell()
        try:
            item = unpacker.unpack()
        except msgpack.OutOfData:
            inner = _msgpack_cut_item(data[start:], depth)
            return None if inner is None else objects + inner
        except (ValueError, TypeError):
            return None
        if is_map and not index % 2 and not isinstance(item, (str, bytes, int)):
            return None
        objects += _objects_in(item, _MSGPACK_MIN_CUT_OBJECTS)
    return None  # the container ended before the cut: what follows is not part of it


def _objects_in(item, limit):
    """How many objects an unpacked item holds (itself included), counted up to ``limit``."""
    if isinstance(item, dict):
        children = [*item.keys(), *item.values()]
    elif isinstance(item, list):
        children = item
    else:
        return 1
    count = 1
    for child in children:
        if count >= limit:
            break
        count += _objects_in(child, limit - count)
    return count


def _msgpack_cut_item(rest, depth):
    """Objects shown by the item the cut fell in (0 for a scalar that looks like a document's: a string whose
    bytes so far are UTF-8, or a value shorter than a head; arbitrary bytes claim lengths far past their end);
    None where it is not MessagePack."""
    if not rest:
        return 0
    if rest[0] in _MSGPACK_CONTAINERS:
        return _msgpack_cut(rest, depth + 1) if depth < _MSGPACK_MAX_DEPTH else None
    try:
        payload, end, _, _ = _msgpack_object(rest, 0)
    except (IndexError, ValueError):
        return 0  # the cut fell inside the item's header
    if rest[0] in _MSGPACK_STR_HEADS:
        return 0 if _utf8(rest[payload:], cut=True) is not None else None
    return 0 if end <= HEAD_BYTES else None


def _msgpack_object(data, pos):
    """``(payload start, end, children, is a map)`` of the MessagePack object whose head is at ``pos``. A
    container ends with its header (its children follow); a scalar's end may lie past the bytes given.
    IndexError where the bytes end inside the header; ValueError for the one head never used."""
    head = data[pos]
    pos += 1
    if head < 0x80 or head >= 0xE0 or head in (0xC0, 0xC2, 0xC3):
        return pos, pos, 0, False
    if head < 0xA0:
        return pos, pos, head & 0x0F, head < 0x90
    if head < 0xC0:
        return pos, pos + (head & 0x1F), 0, False
    if head in _MSGPACK_SIZED:
        width, extra = _MSGPACK_SIZED[head]
        payload = pos + width + extra
        return payload, payload + int.from_bytes(_take(data, pos, width), "big"), 0, False
    if head in _MSGPACK_FIXED:
        return pos, pos + _MSGPACK_FIXED[head], 0, False
    if head in _MSGPACK_COUNTED:
        width, is_map = _MSGPACK_COUNTED[head]
        return pos + width, pos + width, int.from_bytes(_take(data, pos, width), "big"), is_map
    raise ValueError("0xc1 is never used")


def _take(data, pos, width):
    if pos + width > len(data):
        raise IndexError
    return data[pos:pos + width]


def _is_base64(data, cut):
    body = data.replace(b"\r\n", b"").replace(b"\n", b"")
    if len(body) < _BASE64_MIN or not _BASE64.match(body):
        return False
    if not cut and len(body) % 4:
        return False
    # An identifier or a word in base64's alphabet has no digits, or only one case of letters.
    return (any(c in b"0123456789+/_-" for c in body) and any(b"A"[0] <= c <= b"Z"[0] for c in body)
            and any(b"a"[0] <= c <= b"z"[0] for c in body))


def _varint(data, pos):
    value = shift = 0
    while pos < len(data):
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")
    raise EOFError


def _is_protobuf(data, cut):
    """Protobuf's wire format, read to the end: known wire types, plausible field numbers, lengths that fit."""
    fields = _protobuf_fields(data, cut)
    return fields is not None and fields >= _PROTOBUF_MIN_FIELDS


def _protobuf_fields(data, cut, depth=0):
    """How many fields ``data`` holds read as Protobuf's wire format (with those of a message the cut fell
    in), or None where it is not that."""
    pos = fields = 0
    try:
        while pos < len(data):
            tag, pos = _varint(data, pos)
            field, wire = tag >> 3, tag & 7
            if not 1 <= field <= _PROTOBUF_MAX_FIELD:
                return None
            if wire == 0:
                _, end = _varint(data, pos)
            elif wire == 1:
                end = pos + 8
            elif wire == 5:
                end = pos + 4
            elif wire == 2:
                length, pos = _varint(data, pos)
                end = pos + length
                if end > len(data):
                    # The cut fell inside this field: what it holds so far must read as a message or as text
                    # (arbitrary bytes claim lengths past their end, and hold neither).
                    inner = _protobuf_payload(data[pos:], depth) if cut else None
                    return None if inner is None else fields + 1 + inner
            else:  # 3 and 4 are the deprecated groups, 6 and 7 do not exist
                return None
            if end > len(data):
                raise EOFError
            pos = end
            fields += 1
    except EOFError:
        return fields if cut else None
    except ValueError:
        return None
    return fields


def _protobuf_payload(payload, depth):
    """Fields the cut ``payload`` of a length-delimited field holds (0 for text), or None for neither."""
    if _utf8(payload, cut=True) is not None and not _has_control(payload):
        return 0
    return _protobuf_fields(payload, True, depth + 1) if depth < _PROTOBUF_MAX_DEPTH else None
