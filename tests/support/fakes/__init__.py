"""One in-memory fake per gRPC service, shared by every consumer's tests and checked against the
real servicers by contract tests (`services/<service>/tests/test_fake_contract.py`).

Each fake keeps the real service's rules that callers depend on (scope: another organization's
or mode's resource is `not_found`; paging; the state rules of cancel and delivery claims), records
every call, and lets a test make the next call of a method fail (`fail_next`), instead of magic
values hidden in the fake.
"""
