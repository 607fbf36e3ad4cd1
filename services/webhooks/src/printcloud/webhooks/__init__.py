"""The webhooks service: endpoints, signed deliveries with retries, and the event feed."""
