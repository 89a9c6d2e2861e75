"""Analysis passes: one module each; ``PASSES`` lists them in a stable order.

A pass reads the keys table (and the outputs of the passes it ``requires``)
and returns tables and findings; see :class:`~rdbscope.passes.base.Pass`.
"""

from .activity import ActivityPass
from .base import Pass, PassContext, PassOutput
from .bigkeys import BigKeysPass
from .distributions import DistributionsPass
from .expiry import ExpiryPass
from .pattern_groups import PatternGroupsPass
from .patterns import PatternsPass
from .runner import dependency_order, pass_options, run_passes
from .ttl import TtlPass
from .values import ValuesPass

#: Every pass, in the order they run by default.
PASSES = (PatternGroupsPass, PatternsPass, BigKeysPass, TtlPass, ExpiryPass, ActivityPass, DistributionsPass,
          ValuesPass)

def measured_passes(passes):
    """Those of ``passes`` that hold a chunk contract (``measure``, ``merge``, ``finish``): they run
    alike on one table and on chunks."""
    return tuple(p for p in passes if hasattr(p, "measure"))


def grouped_passes(passes):
    """Those of ``passes`` that hold the grouped chunk contract (``measure_groups``, ``merge_groups``,
    ``finish``): they measure per pattern group, alike on one table and on chunks."""
    return tuple(p for p in passes if hasattr(p, "measure_groups"))


#: Every finding code the passes can report, in code order.
CHECKS = tuple(sorted((check for p in PASSES for check in p.checks), key=lambda c: c.code))

__all__ = ["PASSES", "CHECKS", "Pass", "DistributionsPass", "PassContext", "PassOutput", "dependency_order",
           "grouped_passes", "measured_passes", "pass_options", "run_passes"]
