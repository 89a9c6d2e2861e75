"""The compiled loops the analysis runs over a chunk's keys, for the packages above this one: each is
its Cython build where it was built, else its source run as Python (``RDBSCOPE_PUREPYTHON=1`` forces
the source). See the modules for what each does."""

from ._builds import chosen_module

#: Spilled expiry records hashed into buckets, and those of the busy buckets (``rdb/_busy_buckets.py``).
busy_buckets = chosen_module("_busy_buckets")
#: Keys' digits masked and their forms numbered (``rdb/_forms.py``).
forms = chosen_module("_forms")
#: First keys and largest keys per group (``rdb/_group_rows.py``).
group_rows = chosen_module("_group_rows")
#: The uniform sample's rank of each row (``rdb/_ranks.py``).
ranks = chosen_module("_ranks")
#: Sorted runs of counted values merged (``rdb/_runs.py``).
runs = chosen_module("_runs")
#: Keys counted into the slots of a dense range (``rdb/_slot_counts.py``).
slot_counts = chosen_module("_slot_counts")
