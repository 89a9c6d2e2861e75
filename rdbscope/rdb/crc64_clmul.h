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
 * whole 16-byte blocks left folded in (D = 128). The one lane left is congruent mod P to the message,
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

/* RDBSCOPE_CRC64_K[D / 128 - 1] = {x^(D+63) mod P, x^(D-1) mod P} bit-reflected, for the fold distance D bits. */
static const uint64_t RDBSCOPE_CRC64_K[8][2] = {
    {0xd9d7be7d505da32cULL, 0x381d0015c96f4444ULL},  /* D = 128 */
    {0x6ba4d760ab38201eULL, 0xef3d1d18ed889ed2ULL},  /* D = 256 */
    {0xa062b2319d66692fULL, 0x7b3211a760160db8ULL},  /* D = 384 */
    {0xaf86efb16d9ab4fbULL, 0xf49784a634f014e4ULL},  /* D = 512 */
    {0xb715e37b96ed8633ULL, 0xe4dd0d81cbfce585ULL},  /* D = 640 */
    {0xbccba3936411fb7eULL, 0x3885fd59e440d95aULL},  /* D = 768 */
    {0x6cf09c8f37710b75ULL, 0x5bc94ba8e2087636ULL},  /* D = 896 */
    {0xcc26fa7c57f8054cULL, 0x768361524d29ed0bULL},  /* D = 1024 */
};

static inline int rdbscope_crc64_clmul_ok(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul");
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

/* The CRC of p[0:n] from crc, n >= 128; table: the eight slice-by-8 tables of 256 (table 0 the bytewise one). */
__attribute__((target("pclmul,sse2")))
static unsigned long long rdbscope_crc64_clmul(unsigned long long crc, const unsigned char *p, size_t n,
                                               const unsigned long long *table) {
    const __m128i k1024 = rdbscope_crc64_k(7), k128 = rdbscope_crc64_k(0);
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
    for (; i + 16 <= n; i += 16)
        a = _mm_xor_si128(rdbscope_crc64_fold(a, k128), _mm_loadu_si128((const __m128i *)(p + i)));
    unsigned long long w[2];
    _mm_storeu_si128((__m128i *)w, a);
    crc = 0;
    for (j = 0; j < 2; j++) {
        unsigned long long v = crc ^ w[j];
        crc = table[1792 + (v & 0xFF)] ^ table[1536 + ((v >> 8) & 0xFF)] ^ table[1280 + ((v >> 16) & 0xFF)]
            ^ table[1024 + ((v >> 24) & 0xFF)] ^ table[768 + ((v >> 32) & 0xFF)]
            ^ table[512 + ((v >> 40) & 0xFF)] ^ table[256 + ((v >> 48) & 0xFF)] ^ table[v >> 56];
    }
    for (; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

#else

static inline int rdbscope_crc64_clmul_ok(void) { return 0; }

static unsigned long long rdbscope_crc64_clmul(unsigned long long crc, const unsigned char *p, size_t n,
                                               const unsigned long long *table) {
    (void)p; (void)n; (void)table;
    return crc;  /* never called: rdbscope_crc64_clmul_ok() is 0 */
}

#endif
#endif
