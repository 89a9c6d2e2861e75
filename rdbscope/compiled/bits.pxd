# The bit length of a 64-bit word (0 for 0) by the processor's count of leading zeros, shared by the compiled
# modules that take it (kernels/_ranks, kernels/_slot_counts); bits.py is the same as Python.

cdef extern from *:
    """
    #ifndef RDBSCOPE_BIT_LENGTH
    #define RDBSCOPE_BIT_LENGTH
    static inline Py_ssize_t rdbscope_bit_length(unsigned long long x) {
        return x ? 64 - __builtin_clzll(x) : 0;
    }
    #endif
    """
    Py_ssize_t bit_length "rdbscope_bit_length" (unsigned long long x) noexcept nogil
