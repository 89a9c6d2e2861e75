# The integer arrays the kernels take, cimported by their .pxd files: group ids (int32 or int64, as
# kernels.as_ids gives them) and small codes such as a key's type (as kernels.as_codes gives them).

ctypedef fused id_t:
    int
    long long

ctypedef fused code_t:
    signed char
    unsigned char
    short
    int
    long long
