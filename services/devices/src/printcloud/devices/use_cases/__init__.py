"""Use cases of the devices service that have a module of their own (the rest are in `service.py`)."""
