"""lectord's messages as Python objects (docs/PROTOCOL.md; Sources/LectorProtocol).

Each server message a client reads while watching becomes a frozen dataclass: `Text`
(a TEXT: blocks of lines of words), `Track` (a TRACK: a line that settled, changed or
went) and `Match` (a MATCH of one of lectord's rules). Members the protocol leaves out
are None (the protocol sends no nulls: absent means unknown or not asked for); members
this module does not know are ignored, as the protocol asks of every client. A message
whose members are not what the protocol says (a string where a list goes, a number too
large for an int) raises `ProtocolError`, never another exception.
"""
import base64
import binascii
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from .errors import ProtocolError

__all__ = ["Box", "Word", "Line", "Block", "Text", "Track", "Match", "parse"]


def _require(obj, key, kind, message_class):
    value = obj.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ProtocolError("%s without a valid %r: %r" % (message_class, key, value))
    return value


@dataclass(frozen=True)
class Box:
    """A rectangle in the upright image, in pixels."""
    x: int
    y: int
    width: int
    height: int

    @classmethod
    def from_json(cls, obj) -> "Box":
        try:
            return cls(int(obj["x"]), int(obj["y"]), int(obj["width"]), int(obj["height"]))
        except (KeyError, TypeError, ValueError) as error:
            raise ProtocolError("invalid box %r" % (obj,)) from error


def _list(obj, key, kind=None):
    """The list member `key` of `obj` (absent: empty), of `kind` items when given;
    anything else is a ProtocolError."""
    value = obj.get(key, [])
    if not isinstance(value, list) or kind and not all(isinstance(item, kind) for item in value):
        raise ProtocolError(("%r is not a list%s: %r" % (key, " of %s" % kind.__name__ if kind else "", value))[:200])
    return value


def _corners(obj) -> Tuple[Tuple[int, int], ...]:
    return tuple((int(p[0]), int(p[1])) for p in _list(obj, "corners"))


@dataclass(frozen=True)
class Word:
    """One word: its text, box (upright pixels), corners (captured-frame pixels) and
    confidence (0-1)."""
    text: str
    box: Box
    confidence: float
    corners: Tuple[Tuple[int, int], ...] = ()

    @classmethod
    def from_json(cls, obj) -> "Word":
        return cls(_require(obj, "text", str, "word"), Box.from_json(obj.get("box")), float(obj.get("confidence", 0)),
                   _corners(obj))


@dataclass(frozen=True)
class Line:
    """One line of text. `words` is empty when the subscription stops at lines;
    `track` is the line track it belongs to (TRACK's id); `language` its block's
    Tesseract language (`eng`)."""
    text: str
    box: Box
    confidence: float
    words: Tuple[Word, ...] = ()
    track: Optional[str] = None
    language: Optional[str] = None
    corners: Tuple[Tuple[int, int], ...] = ()

    @classmethod
    def from_json(cls, obj, language=None) -> "Line":
        return cls(_require(obj, "text", str, "line"), Box.from_json(obj.get("box")), float(obj.get("confidence", 0)),
                   tuple(Word.from_json(w) for w in _list(obj, "words")), obj.get("track"), language, _corners(obj))


@dataclass(frozen=True)
class Block:
    """A block of lines (a paragraph, a label); `zone` when the camera reads zones."""
    text: str
    box: Box
    confidence: float
    lines: Tuple[Line, ...] = ()
    language: Optional[str] = None
    zone: Optional[str] = None

    @classmethod
    def from_json(cls, obj) -> "Block":
        language = obj.get("language")
        return cls(_require(obj, "text", str, "block"), Box.from_json(obj.get("box")), float(obj.get("confidence", 0)),
                   tuple(Line.from_json(l, language) for l in _list(obj, "lines")), language, obj.get("zone"))


@dataclass(frozen=True)
class Text:
    """One TEXT: what lectord read in one frame of one camera.

    `text` is the whole text (lines separated by newlines); `lines` every line of every
    block in reading order; `partial` is True when the read ran out of time (`unread`
    lines of the scene are still to be read)."""
    device: str
    seq: int
    time: str
    width: int
    height: int
    text: str
    blocks: Tuple[Block, ...] = ()
    recognize_ms: Optional[float] = None
    orientation: Optional[int] = None
    partial: bool = False
    unread: int = 0

    @property
    def lines(self) -> List[Line]:
        return [line for block in self.blocks for line in block.lines]

    @property
    def words(self) -> List[Word]:
        return [word for line in self.lines for word in line.words]

    @classmethod
    def from_json(cls, obj) -> "Text":
        return cls(_require(obj, "device", str, "TEXT"), int(obj.get("seq", 0)), obj.get("time", ""),
                   int(obj.get("width", 0)), int(obj.get("height", 0)), _require(obj, "text", str, "TEXT"),
                   tuple(Block.from_json(b) for b in _list(obj, "blocks")), obj.get("recognize_ms"),
                   (obj.get("orientation") or {}).get("exif"), bool(obj.get("partial", False)), int(obj.get("unread", 0)))


@dataclass(frozen=True)
class Track:
    """One TRACK: a line that settled (`event` "new"), changed its settled text
    ("changed"), or left the view ("gone")."""
    device: str
    id: str
    event: str
    text: str
    box: Box
    confidence: float
    observations: int = 0
    first_seen: str = ""
    last_seen: str = ""

    @classmethod
    def from_json(cls, obj) -> "Track":
        return cls(_require(obj, "device", str, "TRACK"), _require(obj, "id", str, "TRACK"), _require(obj, "event", str, "TRACK"),
                   _require(obj, "text", str, "TRACK"), Box.from_json(obj.get("box")), float(obj.get("confidence", 0)),
                   int(obj.get("observations", 0)), obj.get("first_seen", ""), obj.get("last_seen", ""))


@dataclass(frozen=True)
class Match:
    """One MATCH: a line that one of lectord's rules matched; `groups` are the regular
    expression's groups, `zone` the camera's zone (None for the whole frame)."""
    device: str
    rule: str
    text: str
    matched: str
    groups: Tuple[str, ...] = ()
    zone: Optional[str] = None
    box: Optional[Box] = None
    confidence: float = 0.0
    track: Optional[str] = None
    seq: int = 0
    time: str = ""
    #: The text as read, for a rule that corrects look-alike characters (`alike`); `text`
    #: is then the corrected reading, `corrections` how many characters were swapped.
    read: Optional[str] = None
    corrections: int = 0
    #: For a rule with a known list: the entry (`text`, `name`, `distance`) the reading was
    #: taken as, or None. `is_known` says whether the rule has a list and found an entry.
    known: Optional[dict] = None
    #: Why a meter rule did not accept the reading (no hook ran), or None when accepted.
    rejected: Optional[str] = None
    #: The files kept for an accepted reading (`frame`, `crop`), with lectord --evidence.
    evidence: Optional[dict] = None
    #: The format of the code a rule on codes matched (`source = codes`), None for text.
    code: Optional[str] = None

    @property
    def is_known(self) -> bool:
        return self.known is not None

    @classmethod
    def from_json(cls, obj) -> "Match":
        def optional(key, kind):
            value = obj.get(key)
            if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
                raise ProtocolError("MATCH without a valid %r: %r" % (key, value))
            return value
        known = optional("known", dict)
        if known is not None:
            known = {"text": _require(known, "text", str, "MATCH known"), "name": known.get("name"),
                     "distance": _require(known, "distance", int, "MATCH known")}
        evidence = optional("evidence", dict)
        if evidence is not None:
            evidence = {"frame": _require(evidence, "frame", str, "MATCH evidence"),
                        "crop": _require(evidence, "crop", str, "MATCH evidence")}
        return cls(_require(obj, "device", str, "MATCH"), _require(obj, "rule", str, "MATCH"), _require(obj, "text", str, "MATCH"),
                   obj.get("matched", obj.get("text")), tuple(_list(obj, "groups", str)), obj.get("zone"),
                   Box.from_json(obj["box"]) if "box" in obj else None, float(obj.get("confidence", 0)), obj.get("track"),
                   int(obj.get("seq", 0)), obj.get("time", ""), optional("read", str), optional("corrections", int) or 0,
                   known, optional("rejected", str), evidence, optional("code", str))


@dataclass(frozen=True)
class Code:
    """One CODE: a QR code or barcode that came into view. `text` is its content as text,
    `data` its bytes (the UTF-8 of `text` unless lectord sent `bytes_base64`), `box` where
    it is in the upright image, `corners` its corners in captured-frame pixels."""
    device: str
    format: str
    text: str
    data: bytes = b""
    zone: Optional[str] = None
    box: Optional[Box] = None
    corners: Tuple[Tuple[int, int], ...] = ()
    seq: int = 0
    time: str = ""

    @classmethod
    def from_json(cls, obj) -> "Code":
        text = _require(obj, "text", str, "CODE")
        encoded = obj.get("bytes_base64")
        if encoded is not None and not isinstance(encoded, str):
            raise ProtocolError("CODE without a valid 'bytes_base64': %r" % (encoded,))
        try:
            data = base64.b64decode(encoded, validate=True) if encoded is not None else text.encode()
        except (binascii.Error, ValueError) as error:
            raise ProtocolError("CODE with bytes_base64 that is not base64: %s" % error)
        corners = tuple((int(x), int(y)) for x, y in _list(obj, "corners", list))
        return cls(_require(obj, "device", str, "CODE"), _require(obj, "format", str, "CODE"), text, data, obj.get("zone"),
                   Box.from_json(obj["box"]) if "box" in obj else None, corners, int(obj.get("seq", 0)), obj.get("time", ""))


_TYPES = {"TEXT": Text, "TRACK": Track, "MATCH": Match, "CODE": Code}


def parse(obj):
    """The typed object for a TEXT, TRACK or MATCH message; the dict itself for any
    other class."""
    if not isinstance(obj, dict) or not isinstance(obj.get("class"), str):
        raise ProtocolError(("a message without a class: %r" % (obj,))[:200])
    kind = _TYPES.get(obj["class"])
    if not kind:
        return obj
    try:
        return kind.from_json(obj)
    except ProtocolError:
        raise
    except (AttributeError, TypeError, ValueError, OverflowError, KeyError, IndexError, RecursionError) as error:
        # A member of the wrong type or size ("seq": "NaN", a box of 1e400, "blocks": [5]).
        raise ProtocolError("a %s the protocol does not allow: %s: %s" % (obj["class"], type(error).__name__, error)) from None
