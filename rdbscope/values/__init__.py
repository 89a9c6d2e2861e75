"""What the values say: a bounded sample of each pattern's values, their format, size and compressibility.

Values are the user's data. Only a bounded sample is read, and nothing a value holds is ever printed:
only formats, sizes, ratios and the settings a library stored.
"""
