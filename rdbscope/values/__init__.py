"""What the values say: a bounded sample of each pattern's values, their format, size and compressibility.

Values are the user's data. Only a bounded sample is read, and nothing a value holds is ever printed:
only formats, sizes, ratios and the settings a library stored.
"""

#: The patterns table's columns that say what a pattern's sampled values are: null (0 keys sampled) when none
#: was read.
VALUE_COLUMNS = ("value_format", "element_format", "value_bytes_typical", "value_zstd_ratio", "values_sampled")
