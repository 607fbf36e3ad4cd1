"""The agent-gateway's use cases: agents (`agents.py`) and the jobs pushed to them (`jobs.py`)."""
