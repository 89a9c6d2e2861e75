/* CRC-64/Jones (reflected, as Redis's src/crc64.c) by folding with the carry-less multiply (PCLMULQDQ).
 *
 * Included by _crc64.py through _crc64.pxd. The function carries its own target attribute, so the rest
 * of the build needs no compiler flags; rdbscope_crc64_clmul_ok() tells at run time whether this CPU
 * has the instruction. Elsewhere (other CPUs or compilers) it is 0 and _crc64 keeps its table loops.
 *
 * The math. Reading 16 bytes little-endian, bit i of the 128-bit lane is the coefficient of x^(127-i)
 * of the message polynomial (the CRC is reflected). The CRC of a message M is M * x^64 mod P, with the
 * starting CRC XORed into the first eight bytes. A lane A = H * x^64 + L (H: bytes 0-7, L: bytes 8-15)
 * moved D bits further on is A * x^D = H * x^(D+64) + L * x^D, taken mod P a sum of two 64x64-bit
 * products, so a lane folds onto the one D bits after it with two carry-less multiplies. The product
 * of two reflected 64-bit values comes out as the reflected 128-bit product times x, so the constants
 * are x^(D+63) mod P and x^(D-1) mod P, bit-reflected (bit i holds the coefficient of x^(63-i)).
 * Eight lanes run side by side (D = 1024); they are then folded into one (D = 896 ... 128) and the
 * whole 16-byte blocks left folded in (D = 128). Where the CPU has VPCLMULQDQ with AVX-512, four
 * 64-byte registers of four lanes each run side by side instead (D = 2048), folded into one register
 * (D = 1536, 1024, 512) and its four lanes into one (D = 384, 256, 128). The one lane left is congruent mod P to the message,
 * so the CRC is that of its 16 bytes from 0, then of the last few bytes: the table step finishes it.
 * tests/rdb/test_crc64.py recomputes every constant below from P.
 */
#ifndef RDBSCOPE_CRC64_CLMUL_H
#define RDBSCOPE_CRC64_CLMUL_H

#include <stddef.h>
#include <stdint.h>

/* Fewer bytes than this go through the table loops: below it the set-up costs more than it saves. */
#define RDBSCOPE_CRC64_CLMUL_MIN 256

#if defined(__x86_64__) && defined(__GNUC__)

#include <immintrin.h>

/* The 512-bit path needs a compiler that knows the feature names below. */
#if (defined(__clang__) && __clang_major__ >= 16) || (!defined(__clang__) && __GNUC__ >= 11)
#define RDBSCOPE_CRC64_WIDE 1
#else
#define RDBSCOPE_CRC64_WIDE 0
#endif

/* RDBSCOPE_CRC64_K[D / 128 - 1] = {x^(D+63) mod P, x^(D-1) mod P} bit-reflected, for the fold distance D bits. */
static const uint64_t RDBSCOPE_CRC64_K[16][2] = {
    {0xd9d7be7d505da32cULL, 0x381d0015c96f4444ULL},  /* D = 128 */
    {0x6ba4d760ab38201eULL, 0xef3d1d18ed889ed2ULL},  /* D = 256 */
    {0xa062b2319d66692fULL, 0x7b3211a760160db8ULL},  /* D = 384 */
    {0xaf86efb16d9ab4fbULL, 0xf49784a634f014e4ULL},  /* D = 512 */
    {0xb715e37b96ed8633ULL, 0xe4dd0d81cbfce585ULL},  /* D = 640 */
    {0xbccba3936411fb7eULL, 0x3885fd59e440d95aULL},  /* D = 768 */
    {0x6cf09c8f37710b75ULL, 0x5bc94ba8e2087636ULL},  /* D = 896 */
    {0xcc26fa7c57f8054cULL, 0x768361524d29ed0bULL},  /* D = 1024 */
    {0x64dcbb8303a83619ULL, 0x014e2a64dd870773ULL},  /* D = 1152 */
    {0x2fdbffa4ed8af272ULL, 0x7f1e148f8a506de0ULL},  /* D = 1280 */
    {0x8a8fcf2e749445d5ULL, 0xb85df01084b457eaULL},  /* D = 1408 */
    {0xcbcd47b99e22d5b0ULL, 0x63e4ab47040cbd21ULL},  /* D = 1536 */
    {0x01059e2752cba61cULL, 0x1e0c2595be5cb1bbULL},  /* D = 1664 */
    {0xedd164398e09d84fULL, 0xf9135fd5ca656caaULL},  /* D = 1792 */
    {0x7c5ffeadcfc70cd6ULL, 0xd2f094f83d7585ddULL},  /* D = 1920 */
    {0x9a8908341a6d6d52ULL, 0x9471a5389095fe44ULL},  /* D = 2048 */
};

/* 0: tables only; 1: PCLMULQDQ on 16-byte registers; 2: VPCLMULQDQ on 64-byte registers as well. */
static inline int rdbscope_crc64_clmul_level(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("pclmul"))
        return 0;
#if RDBSCOPE_CRC64_WIDE
    if (__builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("avx512f"))
        return 2;
#endif
    return 1;
}

/* The pair of constants for D = 128 * (d + 1), as one register (the x^(D+63) one in the low half). */
__attribute__((target("pclmul,sse2")))
static inline __m128i rdbscope_crc64_k(int d) {
    return _mm_set_epi64x((long long)RDBSCOPE_CRC64_K[d][1], (long long)RDBSCOPE_CRC64_K[d][0]);
}

/* a moved on by D bits, mod P, for k = rdbscope_crc64_k(D / 128 - 1). */
__attribute__((target("pclmul,sse2")))
static inline __m128i rdbscope_crc64_fold(__m128i a, __m128i k) {
    return _mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x00), _mm_clmulepi64_si128(a, k, 0x11));
}

/* The CRC from the lane a that holds p[0:i], folding in the 16-byte blocks left, then the tail by the tables. */
__attribute__((target("pclmul,sse2")))
static inline unsigned long long rdbscope_crc64_finish(__m128i a, const unsigned char *p, size_t i, size_t n,
                                                       const unsigned long long *table) {
    const __m128i k128 = rdbscope_crc64_k(0);
    for (; i + 16 <= n; i += 16)
        a = _mm_xor_si128(rdbscope_crc64_fold(a, k128), _mm_loadu_si128((const __m128i *)(p + i)));
    unsigned long long w[2], crc = 0;
    _mm_storeu_si128((__m128i *)w, a);
    for (int j = 0; j < 2; j++) {
        unsigned long long v = crc ^ w[j];
        crc = table[1792 + (v & 0xFF)] ^ table[1536 + ((v >> 8) & 0xFF)] ^ table[1280 + ((v >> 16) & 0xFF)]
            ^ table[1024 + ((v >> 24) & 0xFF)] ^ table[768 + ((v >> 32) & 0xFF)]
            ^ table[512 + ((v >> 40) & 0xFF)] ^ table[256 + ((v >> 48) & 0xFF)] ^ table[v >> 56];
    }
    for (; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

/* The CRC of p[0:n] from crc, n >= 128; table: the eight slice-by-8 tables of 256 (table 0 the bytewise one). */
__attribute__((target("pclmul,sse2")))
static unsigned long long rdbscope_crc64_clmul(unsigned long long crc, const unsigned char *p, size_t n,
                                               const unsigned long long *table) {
    const __m128i k1024 = rdbscope_crc64_k(7);
    __m128i x[8];
    size_t i, j;
    for (j = 0; j < 8; j++)
        x[j] = _mm_loadu_si128((const __m128i *)(p + 16 * j));
    x[0] = _mm_xor_si128(x[0], _mm_set_epi64x(0, (long long)crc));
    for (i = 128; i + 128 <= n; i += 128)
        for (j = 0; j < 8; j++)
            x[j] = _mm_xor_si128(rdbscope_crc64_fold(x[j], k1024),
                                 _mm_loadu_si128((const __m128i *)(p + i + 16 * j)));
    __m128i a = x[7];
    for (j = 0; j < 7; j++)
        a = _mm_xor_si128(a, rdbscope_crc64_fold(x[j], rdbscope_crc64_k(6 - (int)j)));
    return rdbscope_crc64_finish(a, p, i, n, table);
}

#if RDBSCOPE_CRC64_WIDE

/* Four lanes at once: each 16-byte lane of z moved on by D bits, for the D of rdbscope_crc64_k(d). */
__attribute__((target("pclmul,sse2,avx512f,vpclmulqdq")))
static inline __m512i rdbscope_crc64_fold4(__m512i z, int d) {
    const __m512i k = _mm512_broadcast_i32x4(rdbscope_crc64_k(d));
    return _mm512_xor_si512(_mm512_clmulepi64_epi128(z, k, 0x00), _mm512_clmulepi64_epi128(z, k, 0x11));
}

/* rdbscope_crc64_clmul with four 64-byte registers, n >= 256. */
__attribute__((target("pclmul,sse2,avx512f,vpclmulqdq")))
static unsigned long long rdbscope_crc64_clmul_wide(unsigned long long crc, const unsigned char *p, size_t n,
                                                    const unsigned long long *table) {
    __m512i z[4];
    size_t i, j;
    for (j = 0; j < 4; j++)
        z[j] = _mm512_loadu_si512((const void *)(p + 64 * j));
    z[0] = _mm512_xor_si512(z[0], _mm512_zextsi128_si512(_mm_set_epi64x(0, (long long)crc)));
    for (i = 256; i + 256 <= n; i += 256)
        for (j = 0; j < 4; j++)
            z[j] = _mm512_xor_si512(rdbscope_crc64_fold4(z[j], 15), _mm512_loadu_si512((const void *)(p + i + 64 * j)));
    __m512i all = _mm512_xor_si512(z[3], rdbscope_crc64_fold4(z[0], 11));
    all = _mm512_xor_si512(all, rdbscope_crc64_fold4(z[1], 7));
    all = _mm512_xor_si512(all, rdbscope_crc64_fold4(z[2], 3));
    __m128i a = _mm512_extracti32x4_epi32(all, 3);
    a = _mm_xor_si128(a, rdbscope_crc64_fold(_mm512_extracti32x4_epi32(all, 0), rdbscope_crc64_k(2)));
    a = _mm_xor_si128(a, rdbscope_crc64_fold(_mm512_extracti32x4_epi32(all, 1), rdbscope_crc64_k(1)));
    a = _mm_xor_si128(a, rdbscope_crc64_fold(_mm512_extracti32x4_epi32(all, 2), rdbscope_crc64_k(0)));
    return rdbscope_crc64_finish(a, p, i, n, table);
}

#endif

/* The CRC of p[0:n] from crc, n >= RDBSCOPE_CRC64_CLMUL_MIN, at the given level (1 or 2). */
static inline unsigned long long rdbscope_crc64_fast(int level, unsigned long long crc, const unsigned char *p,
                                                     size_t n, const unsigned long long *table) {
#if RDBSCOPE_CRC64_WIDE
    if (level == 2)
        return rdbscope_crc64_clmul_wide(crc, p, n, table);
#endif
    (void)level;
    return rdbscope_crc64_clmul(crc, p, n, table);
}

#else

static inline int rdbscope_crc64_clmul_level(void) { return 0; }

static inline unsigned long long rdbscope_crc64_fast(int level, unsigned long long crc, const unsigned char *p,
                                                     size_t n, const unsigned long long *table) {
    (void)level; (void)p; (void)n; (void)table;
    return crc;  /* never called: rdbscope_crc64_clmul_level() is 0 */
}

#endif
#endif
