"""Rendering and writing results; nothing here computes an analysis.

Importing this package gives :class:`~rdbscope.Result` its ``plot`` accessor
(see :class:`~rdbscope.report.plots.PlotProperty`): ``result.py`` cannot import
the renderers (imports point down), so the renderers attach themselves, the
way pandas extensions register accessors. matplotlib is imported only when a
figure is drawn.
"""

from ..result import Result
from .plots import PlotProperty

if not isinstance(Result.__dict__.get("plot"), PlotProperty):
    Result.plot = PlotProperty()
