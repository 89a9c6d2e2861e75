"""Run passes in dependency order over one keys table."""

import logging
import time

from ..keys import KeyTable
from .base import PassContext
from .columns import KeyColumns

log = logging.getLogger(__name__)


def dependency_order(passes, wanted=None):
    """The passes to run for ``wanted`` ids (default: all), each after those it requires.

    Raises:
        ValueError: an unknown id, a requirement no pass provides, or a cycle.
    """
    by_id = {p.id: p for p in passes}
    if len(by_id) != len(passes):
        raise ValueError("two passes share an id")
    ordered, state = [], {}

    def visit(pass_id, chain):
        if pass_id not in by_id:
            raise ValueError(f"unknown pass {pass_id!r}" + (f" (required by {chain[-1]!r})" if chain else ""))
        if state.get(pass_id) == "done":
            return
        if state.get(pass_id) == "visiting":
            raise ValueError(f"passes require each other: {' -> '.join((*chain, pass_id))}")
        state[pass_id] = "visiting"
        for required in by_id[pass_id].requires:
            visit(required, (*chain, pass_id))
        state[pass_id] = "done"
        ordered.append(by_id[pass_id])

    for pass_id in (wanted if wanted is not None else [p.id for p in passes]):
        visit(pass_id, ())
    return ordered


def run_passes(keys, config, passes, wanted=None):
    """Run ``passes`` (classes) on a :class:`~rdbscope.KeyTable`.

    Returns ``(outputs, seconds)``: ``{pass id: PassOutput}`` in the order run,
    and ``{pass id: wall seconds}``.
    """
    if not isinstance(keys, KeyTable):
        raise TypeError(f"expected a KeyTable (from rdbscope.load), got {type(keys).__name__}")
    columns = KeyColumns(keys.to_arrow(), keys.info)
    order = dependency_order(passes, wanted)
    for pass_class in order:
        columns.prefetch(getattr(pass_class, "prefetch", ()))
    outputs, seconds = {}, {}
    for pass_class in order:
        instance = pass_class()
        ctx = PassContext(
            keys=keys,
            columns=columns,
            options=config.options_for(pass_class.id),
            outputs={r: outputs[r] for r in pass_class.requires},
        )
        started = time.perf_counter()
        outputs[pass_class.id] = instance.run(ctx)
        seconds[pass_class.id] = time.perf_counter() - started
        log.debug("pass %s: %.3f s", pass_class.id, seconds[pass_class.id])
    return outputs, seconds
