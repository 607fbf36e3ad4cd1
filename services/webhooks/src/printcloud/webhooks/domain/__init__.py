"""Pure rules of webhooks: event types, signatures, the retry schedule, endpoint rules."""
