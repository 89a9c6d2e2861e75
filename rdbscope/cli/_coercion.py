"""Command-line values turned into their Python types without pydantic.

typer coerces every parameter of a command through a pydantic TypeAdapter: importing pydantic and
building an adapter per parameter costs each run about a tenth of a second, more than the analysis of a
small dump. The values rdbscope's options take (text, whole and decimal numbers, paths, choices, values
with a parser, lists of these) are coerced here the way typer's adapters coerce them; anything else, and
any value that would be refused, goes to typer's own coercion, so that results and error messages
stay typer's.
"""

import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
from typer._param_types import coerce_cli_choice, coerce_cli_path, lenient_issubclass
from typer._typing import is_literal_type, literal_values

#: Numbers written plainly: a value like ``+5``, ``1_000``, `` 7`` or ``1e3`` is left to typer.
_WHOLE = re.compile(r"0|[1-9][0-9]*")
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?")


class _NotPlain(Exception):
    """The value is not one this module coerces: typer's coercion decides."""


@dataclass(frozen=True)
class PlainRuntimeParam(RuntimeParam):
    """typer's coercion of one parameter, for the values :func:`coerce_plain` takes; typer's own
    (built on first need) for the others and for every value it would refuse."""

    descriptor: TypeDescriptor

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        try:
            return coerce_plain(value, self.annotation, self.parameter_info, param, ctx)
        except (_NotPlain, ValueError, AssertionError):  # the errors pydantic turns into a message
            return build_runtime_param(self.descriptor)._coerce_value(value, param, ctx)


def coerce_plain(value, annotation, info, param, ctx):
    """``value`` as typer's adapter for ``annotation`` (and the option's ``info``) would return it; raises
    _NotPlain for what is left to typer."""
    if get_origin(annotation) is list:
        [item_type] = get_args(annotation)
        items = value if isinstance(value, (list, tuple)) else [value]
        return [coerce_plain(item, item_type, info, param, ctx) for item in items]
    if get_origin(annotation) is not None:
        raise _NotPlain
    if info.parser is not None:
        return info.parser(value)
    if lenient_issubclass(annotation, Enum) or is_literal_type(annotation):
        choices = list(annotation) if lenient_issubclass(annotation, Enum) else literal_values(annotation)
        return coerce_cli_choice(value, choices=choices, case_sensitive=info.case_sensitive, ctx=ctx)
    if annotation in (int, float):
        return _number(value, annotation, info)
    if annotation is str and isinstance(value, str):
        return value
    if lenient_issubclass(annotation, Path) and info.path_type is None:
        return _path(value, annotation, info, param, ctx)
    raise _NotPlain


def _path(value, kind, info, param, ctx):
    if isinstance(value, kind):
        return coerce_cli_path(value, info, path_type=kind, param=param, ctx=ctx)
    # typer checks the Path made of the text, and names the text in its messages: the same when the Path
    # is the text as written (not "", "a/", "./a", whose Path differs; nor "-", never a dash as a Path)
    if isinstance(value, str) and value != "-" and str(kind(value)) == value:
        return kind(coerce_cli_path(value, info, path_type=None, param=param, ctx=ctx))
    raise _NotPlain


def _number(value, kind, info):
    if isinstance(value, bool) or info.clamp:
        raise _NotPlain
    if isinstance(value, str) and (_WHOLE if kind is int else _DECIMAL).fullmatch(value):
        number = kind(value)
    elif isinstance(value, int) or (kind is float and isinstance(value, float)):
        number = kind(value)
    else:
        raise _NotPlain
    if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
        raise _NotPlain
    return number


def plain_runtime_param(param):
    """A typer parameter's ``get_runtime_param``: its values coerced by :class:`PlainRuntimeParam` (a file's
    by typer)."""
    if param._runtime_param is None:
        descriptor = param.type_descriptor
        if descriptor.file_annotation is not None:
            param._runtime_param = build_runtime_param(descriptor)
        else:
            param._runtime_param = PlainRuntimeParam(descriptor.parameter_info, descriptor.annotation, descriptor)
    return param._runtime_param
