"""Bytes that were not UTF-8, in text read with `errors="surrogateescape"`.

Such a byte reads as a lone surrogate U+DC80-U+DCFF. Looking for one must cost next
to nothing on valid text, as every message of every context is checked at start-up:
text that encodes as UTF-8 (at C speed) holds no lone surrogate, so only text that
does not is searched.
"""

from __future__ import annotations

import re

_UNDECODABLE = re.compile("[\udc80-\udcff]")


def not_utf8(text: str) -> str | None:
    """Where `text` holds a byte that was not UTF-8 (`byte 0xe9 at character 4 is not
    UTF-8`), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        found = _UNDECODABLE.search(text)
        if found is not None:
            byte = ord(found.group()) - 0xDC00
            return f"byte 0x{byte:02x} at character {found.start() + 1} is not UTF-8"
    return None


def shown(text: str) -> str:
    """`text` printable: bytes that were not UTF-8 as `\\xNN`."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
