"""Run passes in dependency order over one keys table."""

import logging
import time

from ..keys import KeyTable
from ..keyspace.columns import KeyColumns
from .base import PassContext

log = logging.getLogger(__name__)


def dependency_order(passes, wanted=None):
    """The passes to run for ``wanted`` ids (default: all), each after those it requires.

    A pass also runs after the passes it ``uses`` (reads when they run) that run too.

    Raises:
        ValueError: an unknown id, a requirement no pass provides, or a cycle.
    """
    by_id = {p.id: p for p in passes}
    if len(by_id) != len(passes):
        raise ValueError("two passes share an id")
    needed = set()

    def need(pass_id, chain):
        if pass_id not in by_id:
            raise ValueError(f"unknown pass {pass_id!r}" + (f" (required by {chain[-1]!r})" if chain else ""))
        if pass_id not in needed:
            needed.add(pass_id)
            for required in by_id[pass_id].requires:
                need(required, (*chain, pass_id))

    for pass_id in (wanted if wanted is not None else [p.id for p in passes]):
        need(pass_id, ())
    ordered, state = [], {}

    def visit(pass_id, chain):
        if state.get(pass_id) == "done":
            return
        if state.get(pass_id) == "visiting":
            raise ValueError(f"passes require each other: {' -> '.join((*chain, pass_id))}")
        state[pass_id] = "visiting"
        pass_class = by_id[pass_id]
        for before in (*pass_class.requires, *getattr(pass_class, "uses", ())):
            if before in needed:
                visit(before, (*chain, pass_id))
        state[pass_id] = "done"
        ordered.append(pass_class)

    for pass_class in passes:
        if pass_class.id in needed:
            visit(pass_class.id, ())
    return ordered


def pass_options(pass_class, config):
    """The options ``pass_class`` runs with: its ``configure(config)``, or its config section."""
    configure = getattr(pass_class, "configure", None)
    if configure is not None:
        return configure(config)
    return config.options_for(pass_class.id) if pass_class.Options is not None else None


def run_passes(keys, config, passes, wanted=None, columns=None, given=None, measures=None, memory_budget=None):
    """Run ``passes`` (classes) on a :class:`~rdbscope.KeyTable`.

    Returns ``(outputs, seconds)``: ``{pass id: PassOutput}`` in the order run,
    and ``{pass id: wall seconds}``. A bounded run hands its own ``columns``
    (:class:`KeyColumns` of the keys it kept), the ``given`` outputs
    (``{pass id: PassOutput}``) of the passes it computed from partial aggregates, and the
    merged ``measures`` (``{pass id: measure}``) that passes holding a chunk contract finish;
    ``memory_budget``: the run's, in bytes (see :attr:`PassContext.memory_budget`).

    Raises:
        ConfigError: a pass's options in ``config`` are invalid (checked before any pass runs).
    """
    if not isinstance(keys, KeyTable):
        raise TypeError(f"expected a KeyTable (from rdbscope.load), got {type(keys).__name__}")
    order = dependency_order(passes, wanted)
    given = dict(given or {})
    order = [pass_class for pass_class in order if pass_class.id not in given]
    options = {pass_class.id: pass_options(pass_class, config) for pass_class in order}
    if columns is None:
        columns = KeyColumns(keys.to_arrow(), keys.info)
    for pass_class in order:
        columns.prefetch(getattr(pass_class, "prefetch", ()))
    outputs, seconds = dict(given), {}
    for pass_class in order:
        instance = pass_class()
        ctx = PassContext(
            keys=keys,
            columns=columns,
            options=options[pass_class.id],
            outputs={r: outputs[r] for r in (*pass_class.requires, *getattr(pass_class, "uses", ()))
                     if r in outputs},
            memory_budget=memory_budget,
        )
        started = time.perf_counter()
        if hasattr(pass_class, "finish"):
            outputs[pass_class.id] = instance.finish(measures[pass_class.id], ctx)
        else:
            outputs[pass_class.id] = instance.run(ctx)
        seconds[pass_class.id] = time.perf_counter() - started
        log.debug("pass %s: %.3f s", pass_class.id, seconds[pass_class.id])
    return outputs, seconds
