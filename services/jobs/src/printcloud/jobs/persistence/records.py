"""`print_jobs` rows as `domain.job.Job` objects.

`printcloud.core.db.paging.fetch_page` reads the page's items as scalars and their ids as attributes,
so jobs are mapped onto a class (imperatively, keeping `tables.py` plain Core and the domain free
of storage). Mapping also lets a locked job be changed by assigning its fields.
"""

from __future__ import annotations

from sqlalchemy.orm import registry

from printcloud.jobs.domain.job import Job
from printcloud.jobs.persistence.tables import print_jobs

_registry = registry()
_registry.map_imperatively(Job, print_jobs)

__all__ = ["Job"]
