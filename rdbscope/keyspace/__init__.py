"""What the passes and the rules share: the keys as columns, grouped by pattern, and measured.

``columns`` (numpy views of the keys table, computed once), ``grouping`` (dense group ids and
per-group sums, counts, maxima, examples), ``groups`` (keys grouped by db and pattern) and
``measures`` (a group's keys, memory, TTL coverage and examples as table columns).
"""
