"""The programs that run INSIDE the sandbox beside a submission (the harness, generated drivers)."""
