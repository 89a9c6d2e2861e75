"""Known libraries' keys: job queues, caches, session stores and rate limiters (Celery, RQ, BullMQ, …).

:data:`SCHEMAS` lists the keys each library writes, from its source; :func:`recognize`
says which library owns each pattern of a pattern table.
"""

from .recognize import Recognized, recognize
from .schemas import SCHEMAS, KeySchema, Library

__all__ = ["SCHEMAS", "KeySchema", "Library", "Recognized", "recognize"]
