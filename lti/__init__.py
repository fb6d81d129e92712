"""What the tool's web side (api/lti/) and the score poster (worker/lti_scores.py) both need to
talk to an LMS: one way to call a platform and one way to describe it to PyLTI1p3."""
