"""Oracles: trusted code that computes the expected answers of fixture cases."""
