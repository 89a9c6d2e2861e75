"""Runs of plain string records, read as Python: the pure-Python build's hot path.

Dumps are mostly long runs of string keys: a type byte 0 (after an optional
EXPIRETIME_MS), a plain key, and a plain or small-integer value. As Python,
reading such a record through the Scanner's general methods costs a dozen
calls; here a whole run is parsed in one loop over local variables, and the
columns of the run are then filled with numpy in a few operations.

``string_run`` stops, having consumed nothing more, at the first record it does
not handle (another type or opcode, a wider or LZF encoding, a record not
wholly in the buffer, a full batch); the Scanner's general path reads that
record, so every result and every error is the general path's. The compiled
build never calls this.
"""

import numpy as np

from ._pure_members import INT8_TEXT
from .format import E_INT, OPCODE_EXPIRETIME_MS, T_STRING

NO_EXPIRE = -(1 << 63)  # the expire column's "none" inside the scanner

EXPIRE_BYTES = 10  # opcode, 8-byte time, then the type byte


def string_run(s, stop, is_int_text):
    """Read the plain string records at ``s.pos`` into rows, up to row ``stop``; return how many.

    ``is_int_text`` is the scanner's own test of which strings load as integers.
    """
    buf = s.view
    end = s.end
    p = s.pos
    if (p >= end or (buf[p] != 0 and buf[p] != OPCODE_EXPIRETIME_MS) or s.want_db is not None
            or s.want_types is not None or s.key_filter is not None):
        return 0
    limit = min(stop, s.cap)
    room = min(s.kcap, s.key_limit) - s.klen
    shapes = s.run_shapes
    # One list per field, not a tuple per record: millions of tuples would wake the garbage
    # collector again and again.
    kats, lengths, values, shape_list, starts, expires = [], [], [], [], [], []
    rows = s.rows
    count = 0
    while rows + count < limit and end - p >= 4:
        q = p
        t = buf[q]
        expire = NO_EXPIRE
        if t == OPCODE_EXPIRETIME_MS:
            if end - q < EXPIRE_BYTES + 3 or buf[q + 9] != 0:
                break
            expire = int.from_bytes(buf[q + 1:q + 9], "little", signed=True)
            q += EXPIRE_BYTES
        elif t != 0:
            break
        else:
            q += 1
        b = buf[q]
        if b < 64:
            n = b
            q += 1
        elif b < 128:
            n = ((b & 0x3F) << 8) | buf[q + 1]
            q += 2
        else:
            break
        kat = q
        q += n
        if end - q < 2 or n > room:
            break
        b = buf[q]
        if b < 64:
            vlen = b
            q += 1
        elif b < 128:
            vlen = ((b & 0x3F) << 8) | buf[q + 1]
            q += 2
        elif b == 0xC0:
            vlen = -1
        else:
            break
        if vlen < 0:
            vlen = INT8_TEXT[buf[q + 1]]
            sint = 1
            q += 2
        else:
            if end - q < vlen:
                break
            sint = 0
            if vlen <= 20 and vlen:
                c = buf[q]
                if (48 <= c <= 57 or c == 45) and is_int_text(buf, q, vlen):
                    sint = 1
            q += vlen
        shape = ((n << 16 | vlen) << 2 | sint << 1 | (expire != NO_EXPIRE))
        if shape not in shapes and not _learn_shape(s, shapes, shape, n, vlen, sint, expire):
            break
        room -= n
        kats.append(kat)
        lengths.append(n)
        values.append(vlen)
        shape_list.append(shape)
        starts.append(p)
        expires.append(expire)
        count += 1
        p = q
    if count:
        _fill_columns(s, count, p, kats, lengths, values, shape_list, starts, expires)
    return count


def _learn_shape(s, shapes, shape, n, vlen, sint, expire):
    """Work out a string shape's encoding and estimate as the general path does; False if it cannot."""
    s.cur_klen = n
    s.expire_ms = expire
    s.r_n = vlen
    s.r_enc = E_INT if sint else s.string_encoding(vlen)
    est = s.string_cost() if s.estimating else 0
    s.expire_ms = NO_EXPIRE
    if s.estimating and est == 0:  # the general path then falls back to the record's size
        return False
    if len(shapes) >= 65536:
        return False
    shapes[shape] = (s.r_enc, est)
    return True


#: Below this many rows a run's columns are written row by row: numpy's per-call cost would dominate.
NUMPY_ROWS = 64


def _fill_columns(s, count, stop_at, kat_l, n_l, v_l, shape_l, start_l, exp_l):
    if count < NUMPY_ROWS:
        _fill_rows(s, count, stop_at, kat_l, n_l, v_l, shape_l, start_l, exp_l)
        return
    r0 = s.rows
    r1 = r0 + count
    k0 = s.klen
    lengths = np.array(n_l, dtype=np.int64)
    key_ends = k0 + np.cumsum(lengths)
    total = int(key_ends[-1]) - k0
    starts = np.array(start_l, dtype=np.int64)
    first = int(starts[0])
    span = stop_at - first
    # The key bytes are the runs [kat, kat + n) of the records' span: mark them and take them out.
    marks = np.zeros(span + 1, dtype=np.int8)
    kats = np.array(kat_l, dtype=np.int64) - first
    marks[kats] = 1
    marks[kats + lengths] -= 1
    inside = np.cumsum(marks[:span], dtype=np.int8).view(np.bool_)
    with memoryview(s.buf) as whole:
        region = np.frombuffer(whole, dtype=np.uint8, count=span, offset=first)
        s.keydata[k0:k0 + total] = region[inside]
        del region
    s.a_koff[r0 + 1:r1 + 1] = key_ends
    s.a_db[r0:r1] = s.db
    s.a_type[r0:r1] = T_STRING
    ends = np.empty(count, dtype=np.int64)
    ends[:-1] = starts[1:]
    ends[-1] = stop_at
    s.a_rdb_bytes[r0:r1] = ends - starts
    s.a_offset[r0:r1] = starts + s.base
    values = np.array(v_l, dtype=np.uint64)
    s.a_n[r0:r1] = values
    if not s.max_is_n:
        s.a_max[r0:r1] = values
    distinct, index = np.unique(np.array(shape_l, dtype=np.int64), return_inverse=True)
    table = [s.run_shapes[shape] for shape in distinct.tolist()]
    encs = np.array([enc for enc, _ in table], dtype=np.int8)
    ests = np.array([est for _, est in table], dtype=np.uint64)
    s.a_enc[r0:r1] = encs[index]
    expires = np.array(exp_l, dtype=np.int64)
    has_expire = expires != NO_EXPIRE
    with_expire = int(np.count_nonzero(has_expire))
    if with_expire:
        s.a_expire[r0:r1][has_expire] = expires[has_expire]
        _set_bits(s.a_v_expire, r0, has_expire)
    _set_bits(s.a_v_counts, r0, np.ones(count, dtype=np.bool_))
    if s.estimating:
        s.a_est[r0:r1] = ests[index]
    _finish_run(s, count, k0 + total, with_expire, stop_at)


def _fill_rows(s, count, stop_at, kat_l, n_l, v_l, shape_l, start_l, exp_l):
    shapes = s.run_shapes
    buf = s.view
    kview = s.kview
    base = s.base
    db = s.db
    estimating = s.estimating
    max_is_n = s.max_is_n
    c_koff, c_db, c_type, c_enc, c_rdb_bytes = s.c_koff, s.c_db, s.c_type, s.c_enc, s.c_rdb_bytes
    c_n, c_max, c_offset, c_est, c_expire = s.c_n, s.c_max, s.c_offset, s.c_est, s.c_expire
    c_v_counts, c_v_expire = s.c_v_counts, s.c_v_expire
    k = s.klen
    r = s.rows
    with_expire = 0
    for i in range(count):
        n = n_l[i]
        kat = kat_l[i]
        kview[k:k + n] = buf[kat:kat + n]
        k += n
        c_koff[r + 1] = k
        c_db[r] = db
        c_type[r] = T_STRING
        enc, est = shapes[shape_l[i]]
        c_enc[r] = enc
        start = start_l[i]
        c_rdb_bytes[r] = (start_l[i + 1] if i + 1 < count else stop_at) - start
        c_offset[r] = base + start
        c_n[r] = v_l[i]
        if not max_is_n:
            c_max[r] = v_l[i]
        byte = r >> 3
        bit = 1 << (r & 7)
        c_v_counts[byte] |= bit
        expire = exp_l[i]
        if expire != NO_EXPIRE:
            c_expire[r] = expire
            c_v_expire[byte] |= bit
            with_expire += 1
        if estimating:
            c_est[r] = est
        r += 1
    _finish_run(s, count, k, with_expire, stop_at)


def _finish_run(s, count, klen, with_expire, stop_at):
    """Count the run's nulls (string rows have no LFU, idle time, module or field TTLs) and move on."""
    s.nulls_expire += count - with_expire
    s.nulls_lfu += count
    s.nulls_idle += count
    s.nulls_module += count
    s.nulls_ttl_fields += count
    if not s.estimating:
        s.nulls_est += count
    s.klen = klen
    s.rows += count
    s.db_keys += count
    s.pos = stop_at
    s.value_type = 0
    if s.rows == s.cap:
        s.full = True


def _set_bits(bitmap, first, flags):
    """Set bit ``first + i`` of an Arrow validity bitmap wherever ``flags[i]``."""
    lead = first & 7
    lo = first >> 3
    hi = (first + len(flags) + 7) >> 3
    bits = np.zeros((hi - lo) * 8, dtype=np.bool_)
    bits[lead:lead + len(flags)] = flags
    bitmap[lo:hi] |= np.packbits(bits, bitorder="little")
