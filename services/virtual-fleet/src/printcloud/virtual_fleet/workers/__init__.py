"""Loops of the virtual fleet: serving the virtual computers."""
