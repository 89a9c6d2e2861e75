"""The bit length of a 64-bit word (0 for 0), as the compiled modules' Python build takes it; compiled, they
cimport ``bits.pxd``'s, the processor's count of leading zeros."""


def bit_length(x):
    return int(x).bit_length()
