"""Instructor-only reference solutions and fixture oracles. Never shipped to students."""
