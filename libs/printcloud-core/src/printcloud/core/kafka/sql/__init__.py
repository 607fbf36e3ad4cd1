"""Migrations every service schema shares: the outbox and the processed-message ledger."""
