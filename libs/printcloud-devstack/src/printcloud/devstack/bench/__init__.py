"""`make bench`: the performance figures against a stack of its own (see `__main__`)."""
