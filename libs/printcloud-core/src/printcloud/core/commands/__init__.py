"""Operator commands run as processes of their own: `python -m printcloud.core.commands.<name>`
(the chart's topics Job and its `helm test` pod)."""
