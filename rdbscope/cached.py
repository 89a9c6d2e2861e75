"""A property computed once per object, as ``functools.cached_property``, without its lock.

Python 3.11's ``cached_property`` holds one lock per property for all the objects of a class: two
threads measuring two chunks would wait on each other computing the same property of different
chunks. Each object here is used by one thread, so it needs no lock.
"""


class cached_property:  # noqa: N801 (named as the functools one it replaces)
    def __init__(self, function):
        self.function = function
        self.__doc__ = function.__doc__

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.function(instance)
        return value
