"""Keys as text read back to exactly their bytes, in the form tables hold and in the form terminals show."""

import random

import pyarrow as pa

from rdbscope.rdb.keytext import SPOOFING, key_bytes, key_text, key_texts, printable

#: Pieces around the escapes: backslashes, the letters of escapes, controls, UTF-8 of C1 and bidi characters.
PIECES = [b"\\", b"x", b"u", b"f", b"0", b"n", b"\xff", b"\x1b", b"\x00", b"\t", "\u0085".encode(),
          "\u202e".encode(), "é".encode(), b"\xc3", b"\x80"]


def random_keys(seed, n=3000):
    rng = random.Random(seed)
    return [b"".join(rng.choice(PIECES) if rng.random() < 0.7 else rng.randbytes(rng.randrange(3))
                     for _ in range(rng.randrange(12))) for _ in range(n)]


def test_every_key_reads_back_from_its_text_and_from_what_a_terminal_shows():
    keys = random_keys(seed=29)
    texts = key_texts(pa.array(keys, pa.binary())).to_pylist()
    assert texts == [key_text(k) for k in keys]
    for key, text in zip(keys, texts, strict=True):
        assert key_bytes(text) == key
        shown = printable(text)
        assert key_bytes(shown) == key
        assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or ord(c) in SPOOFING for c in shown)


def test_a_high_byte_and_the_four_characters_of_its_escape_are_two_texts():
    assert key_text(b"bin:\xff") == "bin:\\xff" and key_text(b"bin:\\xff") == "bin:\\\\xff"
    assert printable("\x1b]0;t\x07 \u0085 \u202e") == "\\x1b]0;t\\x07 \\u0085 \\u202e"
    assert printable("a" * 300, 256) == "a" * 255 + "…"
