"""Background work of the service: sending deliveries, e-mailing owners, purging old logs."""
