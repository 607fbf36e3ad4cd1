"""`make bench`: the figures of issue 14 against a stack of its own (see `__main__`)."""
