# One little-endian 8-byte load, shared by the compiled modules that read words of a buffer
# (rdb/_crc64.crc64_step, kernels/_forms.word_at, rdb/_scan.le_at). Written byte by byte, gcc keeps eight loads.

cdef extern from *:
    """
    #ifndef RDBSCOPE_LOAD_LE64
    #define RDBSCOPE_LOAD_LE64
    #include <stdint.h>
    #include <string.h>
    static inline uint64_t rdbscope_load_le64(const unsigned char *p) {
        uint64_t x;
        memcpy(&x, p, 8);
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        x = __builtin_bswap64(x);
    #endif
        return x;
    }
    #endif
    """
    unsigned long long load_le64 "rdbscope_load_le64" (const unsigned char *p) noexcept nogil
