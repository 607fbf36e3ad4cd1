"""The jobs use cases, each one a transaction that applies the domain rules to stored jobs:
`print_jobs.py` (the API's and the agent's), `timers.py` (the job timers) and `state_changes.py`
(the one way any of them changes a job's state)."""
