"""RULES: every lint rule, in code order. Adding a rule adds one line here."""

from .big_lists import UncompressedBigList
from .characters import NonAsciiKey, SpecialCharacter, UnprintableByte
from .cluster import NodeImbalance
from .compact_limits import JustOverCompactLimit
from .growth import GrowingIds
from .hashtag_rules import HashTagHotspot, NeedlessHashTag
from .layered_names import AbbreviatedWord, LayoutMismatch
from .length import KeyOverMaxLength, KeyOverRecommendedLength
from .letter_case import CamelCaseWord, UppercaseWord
from .library_names import LibraryNames
from .slotinfo import ClusterNodeSlots, SlotInfoMismatch
from .structure import DeepHierarchy, FlatKey, GenericKeyName, MixedDelimiters
from .timeseries import TimeSeriesZset
from .tiny_strings import TinyStrings
from .user_input import UserInputInKey

#: Every rule class. Codes are stable: a retired code is never given to another rule.
RULES = (
    UppercaseWord,           # NAM001
    CamelCaseWord,           # NAM002
    SpecialCharacter,        # NAM003
    UnprintableByte,         # NAM004
    NonAsciiKey,             # NAM005
    KeyOverMaxLength,        # NAM006
    KeyOverRecommendedLength,  # NAM007 (opt-in)
    FlatKey,                 # NAM008
    GenericKeyName,          # NAM009
    MixedDelimiters,         # NAM010
    DeepHierarchy,           # NAM011
    UserInputInKey,          # NAM012
    AbbreviatedWord,         # NAM013 (opt-in)
    LayoutMismatch,          # NAM014 (opt-in)
    LibraryNames,            # NAM015
    NodeImbalance,           # CLU001
    HashTagHotspot,          # CLU002
    NeedlessHashTag,         # CLU003
    ClusterNodeSlots,        # CLU004
    SlotInfoMismatch,        # CLU005
    JustOverCompactLimit,    # ENC001
    TinyStrings,             # ENC002
    UncompressedBigList,     # ENC003
    TimeSeriesZset,          # ENC004
    GrowingIds,              # GRO001 (opt-in)
)

#: Families of rule codes and what they cover.
FAMILIES = {
    "NAM": "naming: how keys are written",
    "CLU": "Redis Cluster: hash slots, hash tags, balance",
    "ENC": "encoding: memory a different layout would save",
    "GRO": "growth: key families that only grow",
}

#: Opt-in conventions the guides (see guides.py) disagree on, by preset name.
PRESETS = {
    # The layered naming spec: no abbreviations; <module>:<submodule>:<description>:<identifier>.
    "layered-names": ("NAM013", "NAM014"),
    # Baidu Cloud's guidelines: keys within 30 bytes.
    "short-keys": ("NAM007",),
    # Families numbered by a growing counter without TTL: a leak, or a table of users that only grows.
    "growth": ("GRO001",),
}

#: Former preset names, still accepted because users' configs and scripts name them: the preset each became.
DEPRECATED_PRESETS = {"seed-001": "layered-names", "seed-002": "short-keys"}

BY_CODE = {rule.code: rule for rule in RULES}
BY_NAME = {rule.name: rule for rule in RULES}
