"""`make bench`: speed measured as ratios within one run, never asserted in tests."""
