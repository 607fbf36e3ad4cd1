"""What every process tells its operators: logs, traces, metrics over OTLP, the ops endpoint, request ids."""
