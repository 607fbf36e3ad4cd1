"""The dispatcher: resends, spooler timeouts, expiry, and delivery when computers come online."""
