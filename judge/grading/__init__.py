"""Grading a submission: the plan, the tiers it runs, shrinking, and runs before submitting."""
