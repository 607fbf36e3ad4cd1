"""The webhooks use cases, one module an area: endpoints, deliveries on demand, the event feed, the
organizations' owners, and what the workers do (sending, owners' e-mail, retention).

Each use case is one transaction over the persistence modules, applying the rules of `domain/`.
"""
