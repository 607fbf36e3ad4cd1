"""The webhooks use cases, one module an area: endpoints, deliveries on demand, the event feed and
the organizations' owners.

Each use case is one transaction over the persistence modules, applying the rules of `domain/`.
"""
