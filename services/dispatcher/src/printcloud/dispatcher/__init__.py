"""The dispatcher: fires the job timers (resends, spooler timeouts, expiry)."""
