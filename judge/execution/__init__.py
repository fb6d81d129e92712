"""Running a submission: compiling it once, the time budget, and the runners of each style."""
