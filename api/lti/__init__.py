"""LTI 1.3 Advantage (docs/lti.md): pylti1p3 over FastAPI and our database (adapter), the
tool's keys (keys), what a launch may carry (claims), and the pages and endpoints a
platform talks to (web)."""
