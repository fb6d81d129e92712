"""Test-set strength: mutants of the reference, which tests kill them, and how often."""
