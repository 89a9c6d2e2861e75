"""Analysis passes: one module each; ``PASSES`` lists them in a stable order.

A pass reads the keys table (and the outputs of the passes it ``requires``)
and returns tables and findings; see :class:`~rdbscope.passes.base.Pass`.
"""

from .activity import ActivityPass
from .base import Pass, PassContext, PassOutput
from .bigkeys import BigKeysPass
from .expiry import ExpiryPass
from .pattern_groups import PatternGroupsPass
from .patterns import PatternsPass
from .runner import dependency_order, pass_options, run_passes
from .ttl import TtlPass

#: Every pass, in the order they run by default.
PASSES = (PatternGroupsPass, PatternsPass, BigKeysPass, TtlPass, ExpiryPass, ActivityPass)

#: Every finding code the passes can report, in code order.
CHECKS = tuple(sorted((check for p in PASSES for check in p.checks), key=lambda c: c.code))

__all__ = ["PASSES", "CHECKS", "Pass", "PassContext", "PassOutput", "dependency_order", "pass_options", "run_passes"]
