"""``python -m rdbscope``: the same as the ``rdbscope`` command."""

from .cli import main

main()
