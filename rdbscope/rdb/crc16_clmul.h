/* The Redis Cluster hash slots of many keys by the carry-less multiply (PCLMULQDQ): CRC16/XMODEM of the key or
 * of its hash tag, modulo 16384 (src/cluster.c keyHashSlot).
 *
 * Included by _slots.py through _slots.pxd. The functions carry their own target attribute, so the rest of the
 * build needs no compiler flags; rdbscope_crc16_clmul_level() tells at run time which of them this CPU has.
 * Elsewhere (other CPUs or compilers) it is 0 and _slots keeps its table loop.
 *
 * The math. The CRC of a message M (initial value 0, not reflected) is M * x^16 mod P, P = x^16 + x^12 + x^5 + 1,
 * where the first byte's top bit is the coefficient of the highest power. Zero bytes in front of a message leave
 * its CRC as it is, so a key is read as 16-byte blocks, the first one holding the 1 to 16 bytes left over at the
 * front, right-aligned (a block is a 128-bit number, read big-endian). A block A = H * x^64 + L moved on by 128
 * bits is H * x^192 + L * x^128, congruent mod P to H * (x^192 mod P) + L * (x^128 mod P): two carry-less
 * multiplies whose sum (under 80 bits) is XORed onto the next block. The last block's H * x^80 + L * x^16 is
 * likewise L * x^16 + Z with Z = H * (x^80 mod P) = Zh * x^16 + Zl, so the CRC is (L + Zh) * x^16 mod P + Zl;
 * m * x^16 mod P for a 64-bit m is the Barrett reduction low16((m + floor(m * mu / x^64)) * P), where
 * mu = floor(x^80 / P) - x^64. tests/rdb/test_slot_routines.py recomputes every constant below from P.
 *
 * While the blocks are loaded, a compare finds whether the key holds a "{"; only such a key takes the hash-tag
 * path, which finds the tag with memchr and takes the CRC of the tag (or of the whole key, the tag empty or open).
 * Where the CPU has VPCLMULQDQ with AVX-512, four keys of 1 to 16 bytes without "{" are reduced side by side,
 * one in each 16-byte lane of a 64-byte register.
 */
#ifndef RDBSCOPE_CRC16_CLMUL_H
#define RDBSCOPE_CRC16_CLMUL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)

#include <immintrin.h>

#define RDBSCOPE_CRC16_P 0x1021ULL                    /* P without its x^16 */
#define RDBSCOPE_CRC16_MU 0x11303471a041b343ULL       /* floor(x^80 / P) without its x^64 */
#define RDBSCOPE_CRC16_X80 0xeb23ULL                  /* x^80 mod P */
#define RDBSCOPE_CRC16_X128 0xaefcULL                 /* x^128 mod P */
#define RDBSCOPE_CRC16_X192 0x650bULL                 /* x^192 mod P */

/* The 4-keys-at-once path needs a compiler that knows the feature names below. */
#if (defined(__clang__) && __clang_major__ >= 16) || (!defined(__clang__) && __GNUC__ >= 11)
#define RDBSCOPE_CRC16_WIDE 1
#else
#define RDBSCOPE_CRC16_WIDE 0
#endif

/* 0: tables only; 1: PCLMULQDQ, a key at a time; 2: VPCLMULQDQ with AVX-512, four short keys at a time as well. */
static inline int rdbscope_crc16_clmul_level(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("pclmul") || !__builtin_cpu_supports("ssse3"))
        return 0;
#if RDBSCOPE_CRC16_WIDE
    if (__builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("avx512f")
        && __builtin_cpu_supports("avx512bw"))
        return 2;
#endif
    return 1;
}

/* pshufb masks for r = 0..16 bytes: m[r] of the tail masks turns 16 bytes loaded so that the r wanted are the
 * last ones into the big-endian number of those r bytes (m[16] reverses a whole block); m[r] of the head masks
 * does so for 16 bytes loaded from the first wanted one. Index 0x80 writes a zero byte. */
typedef struct { uint8_t m[17][16]; } rdbscope_crc16_masks;

static rdbscope_crc16_masks rdbscope_crc16_masks_for(int from_head) {
    rdbscope_crc16_masks t;
    for (int r = 0; r <= 16; r++)
        for (int j = 0; j < 16; j++)
            t.m[r][j] = (uint8_t)(j < r ? (from_head ? r - 1 - j : 15 - j) : 0x80);
    return t;
}

/* The 1 to 16 bytes data[start:start + r] as a big-endian 128-bit number; data holds size bytes. Loads may reach
 * before start or after start + r (other keys' bytes), never outside data. */
__attribute__((target("pclmul,ssse3")))
static inline __m128i rdbscope_crc16_first_block(const uint8_t *data, size_t size, size_t start, size_t r,
                                                 const rdbscope_crc16_masks *tail,
                                                 const rdbscope_crc16_masks *head) {
    if (start + r >= 16)
        return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + start + r - 16)),
                                _mm_loadu_si128((const __m128i *)tail->m[r]));
    if (start + 16 <= size)
        return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + start)),
                                _mm_loadu_si128((const __m128i *)head->m[r]));
    uint8_t copy[16] = {0};
    memcpy(copy, data + start, r);
    return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)copy), _mm_loadu_si128((const __m128i *)head->m[r]));
}

/* The CRC16 of a message whose last (or only) 16-byte block, the others folded onto it, is a: its
 * H * x^80 + L * x^16 mod P. */
__attribute__((target("pclmul,ssse3")))
static inline unsigned rdbscope_crc16_last(__m128i a) {
    const __m128i k = _mm_set_epi64x((long long)RDBSCOPE_CRC16_P, (long long)RDBSCOPE_CRC16_MU);
    __m128i z = _mm_clmulepi64_si128(a, _mm_cvtsi64_si128((long long)RDBSCOPE_CRC16_X80), 0x01);  /* Z = H * x^80 mod P */
    __m128i m = _mm_xor_si128(a, _mm_srli_si128(z, 2));                                            /* L + Zh */
    __m128i q = _mm_xor_si128(m, _mm_srli_si128(_mm_clmulepi64_si128(m, k, 0x00), 8));
    __m128i crc = _mm_xor_si128(_mm_clmulepi64_si128(q, k, 0x10), z);
    return (unsigned)_mm_cvtsi128_si32(crc) & 0xFFFF;
}

/* The CRC16 of data[start:start + n]; *brace is set non-zero when those bytes hold a "{". */
__attribute__((target("pclmul,ssse3")))
static inline unsigned rdbscope_crc16_clmul(const uint8_t *data, size_t size, size_t start, size_t n, int *brace,
                                            const rdbscope_crc16_masks *tail, const rdbscope_crc16_masks *head) {
    if (n == 0) {
        *brace = 0;
        return 0;
    }
    const __m128i reverse = _mm_loadu_si128((const __m128i *)tail->m[16]);
    const __m128i open = _mm_set1_epi8('{');
    const __m128i fold = _mm_set_epi64x((long long)RDBSCOPE_CRC16_X192, (long long)RDBSCOPE_CRC16_X128);
    size_t r = ((n - 1) & 15) + 1, i = start + r, end = start + n;
    __m128i a = rdbscope_crc16_first_block(data, size, start, r, tail, head);
    __m128i seen = _mm_cmpeq_epi8(a, open);
    for (; i < end; i += 16) {
        __m128i b = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + i)), reverse);
        seen = _mm_or_si128(seen, _mm_cmpeq_epi8(b, open));
        a = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(a, fold, 0x00), _mm_clmulepi64_si128(a, fold, 0x11)), b);
    }
    *brace = _mm_movemask_epi8(seen);
    return rdbscope_crc16_last(a);
}

/* The slot of the key data[lo:lo + len]. */
__attribute__((target("pclmul,ssse3")))
static inline unsigned rdbscope_key_slot_clmul(const unsigned char *data, size_t size, size_t lo, size_t len,
                                               const rdbscope_crc16_masks *tail, const rdbscope_crc16_masks *head) {
    unsigned crc;
    int brace;
    if (len - 1 < 16 && lo + len >= 16) {  /* 1 to 16 bytes, not at the buffer's start: one block */
        __m128i a = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + lo + len - 16)),
                                     _mm_loadu_si128((const __m128i *)tail->m[len]));
        brace = _mm_movemask_epi8(_mm_cmpeq_epi8(a, _mm_set1_epi8('{')));
        crc = rdbscope_crc16_last(a);
    } else
        crc = rdbscope_crc16_clmul(data, size, lo, len, &brace, tail, head);
    if (brace) {
        const unsigned char *key = data + lo;
        const unsigned char *first = (const unsigned char *)memchr(key, '{', len);
        const unsigned char *close = (const unsigned char *)memchr(first + 1, '}', len - (size_t)(first + 1 - key));
        if (close != NULL && close > first + 1)  /* a non-empty tag: hash only the tag */
            crc = rdbscope_crc16_clmul(data, size, (size_t)(first + 1 - data), (size_t)(close - first - 1), &brace,
                                       tail, head);
    }
    return crc & 16383;
}

/* Keys per block: the slots of a block are found, then counted. The two loops apart each keep the core busy,
 * where one loop doing both waits on the multiplies and on the counters' cache lines. */
#define RDBSCOPE_SLOTS_BLOCK 1024

/* How far ahead of the keys read the next ones are fetched into the cache (prefetches never fault, even past
 * the buffers' ends): the keys are read once, mostly from memory, and the loads of four keys wait on them. */
#define RDBSCOPE_SLOTS_AHEAD 1024

/* From this many keys on, the keys and memory of a slot are counted side by side in one cache line. */
#define RDBSCOPE_SLOTS_PAIRED 65536

typedef struct { double total; long long n_keys; } rdbscope_slot_counts;

/* The counters side by side for n keys, from n_keys and total; NULL to count into those directly. */
static rdbscope_slot_counts *rdbscope_slot_counts_open(Py_ssize_t n, const long long *n_keys, const double *total) {
    rdbscope_slot_counts *paired = NULL;
    if (n_keys != NULL && n >= RDBSCOPE_SLOTS_PAIRED && (paired = malloc(16384 * sizeof *paired)) != NULL)
        for (int slot = 0; slot < 16384; slot++) {
            paired[slot].total = total[slot];
            paired[slot].n_keys = n_keys[slot];
        }
    return paired;
}

/* One more key and its memory per slot for the keys start to stop, in their order. */
static inline void rdbscope_slot_counts_add(rdbscope_slot_counts *paired, const unsigned short *out,
                                            const unsigned long long *memory, long long *n_keys, double *total,
                                            Py_ssize_t start, Py_ssize_t stop) {
    if (paired != NULL)
        for (Py_ssize_t k = start; k < stop; k++) {
            paired[out[k]].n_keys += 1;
            paired[out[k]].total += (double)memory[k];
        }
    else if (n_keys != NULL)
        for (Py_ssize_t k = start; k < stop; k++) {
            n_keys[out[k]] += 1;
            total[out[k]] += (double)memory[k];
        }
}

static void rdbscope_slot_counts_close(rdbscope_slot_counts *paired, long long *n_keys, double *total) {
    if (paired == NULL)
        return;
    for (int slot = 0; slot < 16384; slot++) {
        total[slot] = paired[slot].total;
        n_keys[slot] = paired[slot].n_keys;
    }
    free(paired);
}

/* The slot of every key i < n (offsets, data: an Arrow binary array's buffers, data of size bytes) into out[i];
 * where n_keys is not NULL, one more to n_keys[slot] and memory[i] to total[slot] for each key in turn. */
__attribute__((target("pclmul,ssse3")))
static void rdbscope_slots_clmul(const int *offsets, const unsigned char *data, size_t size, Py_ssize_t n,
                                 unsigned short *out, const unsigned long long *memory, long long *n_keys,
                                 double *total) {
    const rdbscope_crc16_masks tail = rdbscope_crc16_masks_for(0), head = rdbscope_crc16_masks_for(1);
    rdbscope_slot_counts *paired = rdbscope_slot_counts_open(n, n_keys, total);
    for (Py_ssize_t block = 0; block < n; block += RDBSCOPE_SLOTS_BLOCK) {
        Py_ssize_t stop = n - block < RDBSCOPE_SLOTS_BLOCK ? n : block + RDBSCOPE_SLOTS_BLOCK;
        for (Py_ssize_t k = block; k < stop; k++) {
            if (k % 4 == 0) {
                __builtin_prefetch(data + offsets[k] + RDBSCOPE_SLOTS_AHEAD);
                __builtin_prefetch(offsets + k + RDBSCOPE_SLOTS_AHEAD / 4);
            }
            out[k] = (unsigned short)rdbscope_key_slot_clmul(data, size, (size_t)offsets[k],
                                                             (size_t)(offsets[k + 1] - offsets[k]), &tail, &head);
        }
        rdbscope_slot_counts_add(paired, out, memory, n_keys, total, block, stop);
    }
    rdbscope_slot_counts_close(paired, n_keys, total);
}

#if RDBSCOPE_CRC16_WIDE

/* rdbscope_slots_clmul taking four keys at a time where each has 1 to 16 bytes and none a "{". */
__attribute__((target("pclmul,ssse3,avx512f,avx512bw,vpclmulqdq")))
static void rdbscope_slots_clmul_wide(const int *offsets, const unsigned char *data, size_t size, Py_ssize_t n,
                                      unsigned short *out, const unsigned long long *memory, long long *n_keys,
                                      double *total) {
    const rdbscope_crc16_masks tail = rdbscope_crc16_masks_for(0), head = rdbscope_crc16_masks_for(1);
    const __m512i open = _mm512_set1_epi8('{');
    const __m512i reverse = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)tail.m[16]));
    const __m512i k = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)RDBSCOPE_CRC16_P,
                                                            (long long)RDBSCOPE_CRC16_MU));
    const __m512i x80 = _mm512_broadcast_i32x4(_mm_cvtsi64_si128((long long)RDBSCOPE_CRC16_X80));
    const __m512i lanes = _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                           0, 0, 0, 0, 24, 16, 8, 0);  /* the low 16 bits of each lane */
    rdbscope_slot_counts *paired = rdbscope_slot_counts_open(n, n_keys, total);
    for (Py_ssize_t block = 0; block < n; block += RDBSCOPE_SLOTS_BLOCK) {
        Py_ssize_t stop = n - block < RDBSCOPE_SLOTS_BLOCK ? n : block + RDBSCOPE_SLOTS_BLOCK, i = block;
        for (; i + 4 <= stop; i += 4) {
            __builtin_prefetch(data + offsets[i] + RDBSCOPE_SLOTS_AHEAD);
            __builtin_prefetch(offsets + i + RDBSCOPE_SLOTS_AHEAD / 4);
            size_t e0 = (size_t)offsets[i + 1], e1 = (size_t)offsets[i + 2], e2 = (size_t)offsets[i + 3];
            size_t e3 = (size_t)offsets[i + 4], l0 = e0 - (size_t)offsets[i], l1 = e1 - e0, l2 = e2 - e1;
            size_t l3 = e3 - e2;
            if (((l0 - 1) | (l1 - 1) | (l2 - 1) | (l3 - 1)) < 16 && e0 >= 16) {
                /* each key's bytes, the last ones of a 16-byte load, big-endian in its lane; zeros in front */
                __mmask64 bytes = ((1ULL << l0) - 1) | ((1ULL << l1) - 1) << 16 | ((1ULL << l2) - 1) << 32
                                  | ((1ULL << l3) - 1) << 48;
                __m512i v = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(data + e0 - 16)));
                v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(data + e1 - 16)), 1);
                v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(data + e2 - 16)), 2);
                v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(data + e3 - 16)), 3);
                __m512i a = _mm512_maskz_shuffle_epi8(bytes, v, reverse);
                if (_mm512_cmpeq_epi8_mask(a, open) == 0) {  /* as rdbscope_crc16_last, lane by lane */
                    __m512i z = _mm512_clmulepi64_epi128(a, x80, 0x01);
                    __m512i m = _mm512_xor_si512(a, _mm512_bsrli_epi128(z, 2));
                    __m512i q = _mm512_xor_si512(m, _mm512_bsrli_epi128(_mm512_clmulepi64_epi128(m, k, 0x00), 8));
                    __m512i crc = _mm512_xor_si512(_mm512_clmulepi64_epi128(q, k, 0x10), z);
                    __m128i four = _mm512_castsi512_si128(_mm512_permutexvar_epi16(lanes, crc));
                    _mm_storel_epi64((__m128i *)(out + i), _mm_and_si128(four, _mm_set1_epi16(16383)));
                    continue;
                }
            }
            for (Py_ssize_t j = i; j < i + 4; j++)
                out[j] = (unsigned short)rdbscope_key_slot_clmul(data, size, (size_t)offsets[j],
                                                                 (size_t)(offsets[j + 1] - offsets[j]), &tail, &head);
        }
        for (; i < stop; i++)
            out[i] = (unsigned short)rdbscope_key_slot_clmul(data, size, (size_t)offsets[i],
                                                             (size_t)(offsets[i + 1] - offsets[i]), &tail, &head);
        rdbscope_slot_counts_add(paired, out, memory, n_keys, total, block, stop);
    }
    rdbscope_slot_counts_close(paired, n_keys, total);
}

#endif

/* The slots (and counts) of rdbscope_slots_clmul at the given level (1 or 2). */
static void rdbscope_slots_fast(int level, const int *offsets, const unsigned char *data, size_t size, Py_ssize_t n,
                                unsigned short *out, const unsigned long long *memory, long long *n_keys,
                                double *total) {
#if RDBSCOPE_CRC16_WIDE
    if (level == 2) {
        rdbscope_slots_clmul_wide(offsets, data, size, n, out, memory, n_keys, total);
        return;
    }
#endif
    (void)level;
    rdbscope_slots_clmul(offsets, data, size, n, out, memory, n_keys, total);
}

#else

static inline int rdbscope_crc16_clmul_level(void) { return 0; }

static void rdbscope_slots_fast(int level, const int *offsets, const unsigned char *data, size_t size, Py_ssize_t n,
                                unsigned short *out, const unsigned long long *memory, long long *n_keys,
                                double *total) {
    (void)level; (void)offsets; (void)data; (void)size; (void)n; (void)out; (void)memory; (void)n_keys; (void)total;
    /* never called: rdbscope_crc16_clmul_level() is 0 */
}

#endif
#endif
