"""Analysis past one process: dumps of any size, and many dumps at once."""
