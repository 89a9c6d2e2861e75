"""Constants of the RDB format.

Values come from Redis's ``src/rdb.h`` (up to RDB 14, Redis 8.8) and Valkey's
``src/rdb.h`` (RDB 80, Valkey 9.0). Where the two projects gave the same byte
different meanings (types 22 and 23, opcode 243) the scanner decides by the
file's magic string.
"""

MAGIC_REDIS = b"REDIS"
MAGIC_VALKEY = b"VALKEY"

#: RDB versions written with the ``REDIS`` magic that rdbscope reads.
#: 1-11 are open-source Redis (2.x to 7.2) and Valkey 7.2/8.x; 12 is Redis 7.4,
#: 13 Redis 8.6, 14 Redis 8.8.
REDIS_VERSIONS = range(1, 15)
#: RDB versions written with the ``VALKEY`` magic: 80 is Valkey 9.0/9.1.
VALKEY_VERSIONS = (80,)

# Object types (src/rdb.h RDB_TYPE_*).
TYPE_STRING = 0
TYPE_LIST = 1
TYPE_SET = 2
TYPE_ZSET = 3
TYPE_HASH = 4
TYPE_ZSET_2 = 5
TYPE_MODULE_PRE_GA = 6
TYPE_MODULE_2 = 7
TYPE_HASH_ZIPMAP = 9
TYPE_LIST_ZIPLIST = 10
TYPE_SET_INTSET = 11
TYPE_ZSET_ZIPLIST = 12
TYPE_HASH_ZIPLIST = 13
TYPE_LIST_QUICKLIST = 14
TYPE_STREAM_LISTPACKS = 15
TYPE_HASH_LISTPACK = 16
TYPE_ZSET_LISTPACK = 17
TYPE_LIST_QUICKLIST_2 = 18
TYPE_STREAM_LISTPACKS_2 = 19
TYPE_SET_LISTPACK = 20
TYPE_STREAM_LISTPACKS_3 = 21
# Redis: hash-field-expiry hashes of the 7.4 release candidates.
TYPE_HASH_METADATA_PRE_GA = 22
TYPE_HASH_LISTPACK_EX_PRE_GA = 23
# Valkey 9: the same byte 22 is a hash with per-field expiry.
TYPE_VALKEY_HASH_2 = 22
# Redis 7.4 GA and later.
TYPE_HASH_METADATA = 24
TYPE_HASH_LISTPACK_EX = 25
TYPE_STREAM_LISTPACKS_4 = 26  # Redis 8.6: IDMP producer tables
TYPE_STREAM_LISTPACKS_5 = 27  # Redis 8.8: NACKed PEL entries
TYPE_ARRAY = 28  # Redis 8.8
TYPE_GCRA = 29  # Redis builds with ENABLE_GCRA only

# Opcodes (src/rdb.h RDB_OPCODE_*).
OPCODE_VALKEY_242 = 242  # Valkey RDB 81, written only by unstable builds (9.1.2, the newest release, writes 80)
OPCODE_KEY_META = 243  # Redis 8.6+: module key metadata before a type byte
OPCODE_SLOT_IMPORT = 243  # Valkey 9.0+: slot import job
OPCODE_SLOT_INFO = 244
OPCODE_FUNCTION2 = 245
OPCODE_FUNCTION_PRE_GA = 246
OPCODE_MODULE_AUX = 247
OPCODE_IDLE = 248
OPCODE_FREQ = 249
OPCODE_AUX = 250
OPCODE_RESIZEDB = 251
OPCODE_EXPIRETIME_MS = 252
OPCODE_EXPIRETIME = 253
OPCODE_SELECTDB = 254
OPCODE_EOF = 255

# Module value opcodes (src/rdb.h RDB_MODULE_OPCODE_*).
MODULE_OPCODE_EOF = 0
MODULE_OPCODE_SINT = 1
MODULE_OPCODE_UINT = 2
MODULE_OPCODE_FLOAT = 3
MODULE_OPCODE_DOUBLE = 4
MODULE_OPCODE_STRING = 5

#: Characters of a module type name, 6 bits each (src/module.c ModuleTypeNameCharSet).
MODULE_NAME_CHARSET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

#: The ``type`` column's dictionary, in index order.
TYPE_NAMES = ("string", "list", "set", "zset", "hash", "stream", "module", "array", "gcra")
T_STRING, T_LIST, T_SET, T_ZSET, T_HASH, T_STREAM, T_MODULE, T_ARRAY, T_GCRA = range(len(TYPE_NAMES))

#: The ``encoding`` column's dictionary, in index order.
ENCODING_NAMES = (
    "int", "embstr", "raw",
    "linkedlist", "ziplist", "quicklist", "listpack",
    "hashtable", "intset", "skiplist", "zipmap", "listpackex",
    "stream", "sliced-array", "gcra",
)
(E_INT, E_EMBSTR, E_RAW, E_LINKEDLIST, E_ZIPLIST, E_QUICKLIST, E_LISTPACK, E_HASHTABLE,
 E_INTSET, E_SKIPLIST, E_ZIPMAP, E_LISTPACKEX, E_STREAM, E_ARRAY, E_GCRA) = range(len(ENCODING_NAMES))

# Quicklist 2 node containers (src/quicklist.h).
QUICKLIST_NODE_PLAIN = 1
QUICKLIST_NODE_PACKED = 2

# Stream listpack entry flags (src/t_stream.c STREAM_ITEM_FLAG_*).
STREAM_ITEM_FLAG_DELETED = 1
STREAM_ITEM_FLAG_SAMEFIELDS = 2

#: Array element tags (Redis 8.8 src/sparsearray.h AR_RDB_TAG_*).
ARRAY_TAG_SDS, ARRAY_TAG_INT, ARRAY_TAG_FLOAT, ARRAY_TAG_SMALLSTR = 0, 1, 2, 3


def module_type_name(module_id):
    """Decode the 9-character module type name from a 64-bit module id.

    The top 54 bits hold nine 6-bit characters; the low 10 bits are the
    module's encoding version (src/module.c moduleTypeNameByID).
    """
    chars = []
    for i in range(9):
        shift = 64 - 6 * (i + 1)
        chars.append(MODULE_NAME_CHARSET[(module_id >> shift) & 63])
    return "".join(chars)


def writer_version(value):
    """``[major, minor]`` of a ``redis-ver``/``valkey-ver`` AUX value (bytes), or None when it is not one.

    Redis and Valkey number versions in bytes (src/version.h; 255.255.255 is an unstable build): a
    value outside them is no version a memory layout could be chosen by, as if the field were missing.
    """
    try:
        parts = [int(x) for x in value.decode("ascii").split(".")[:2]]
    except (UnicodeDecodeError, ValueError):
        return None
    if len(parts) < 2 or not all(0 <= part <= 255 for part in parts):
        return None
    return parts
