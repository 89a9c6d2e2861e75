"""The calls front ends make: ``load()`` a dump, ``analyze()`` it."""

import os

import pyarrow as pa

from .config import Config, load_config
from .findings import sort_findings
from .keys import KeyTable, load
from .passes import PASSES, run_passes
from .passes.columns import memory_basis
from .result import Result
from .rules import RulesPass

__all__ = ["load", "analyze"]


def analyze(keys, config=None, *, passes=None):
    """Run the analysis passes over a :class:`~rdbscope.KeyTable` and return a :class:`Result`.

    Args:
        keys: what :func:`load` returned.
        config: a :class:`~rdbscope.config.Config`, the path of an ``rdbscope.toml``
            or ``pyproject.toml``, or None for the defaults.
        passes: ids of the passes to run (the ones they require run too);
            default: all of them, and the lint rules (id ``"rules"``).

    Raises:
        ConfigError: the config file is invalid.
    """
    if config is None:
        config = Config()
    elif isinstance(config, (str, os.PathLike)):
        config = load_config(config)
    outputs, seconds = run_passes(keys, config, (*PASSES, RulesPass.configured(config)), wanted=passes)
    table = keys.to_arrow()
    tables, findings = {}, []
    for pass_id, output in outputs.items():
        for name, array in output.columns.items():
            table = _with_column(table, name, array)
        for name, result_table in output.tables.items():
            if name in tables:
                raise ValueError(f"two passes made a table named {name!r}")
            tables[name] = result_table
        findings.extend(f for f in output.findings if config.selects(f.code))
    return Result(
        keys=KeyTable(table, keys.info),
        tables=tables,
        finding_list=tuple(sort_findings(findings)),
        memory_basis=memory_basis(table),
        config=config,
        seconds=seconds,
    )


def _with_column(table, name, array):
    if isinstance(array, pa.Array):
        array = pa.chunked_array([array])
    if name in table.column_names:
        return table.set_column(table.column_names.index(name), name, array)
    return table.append_column(name, array)
