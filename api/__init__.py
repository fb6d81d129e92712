"""HTTP API of the judge service (FastAPI): app factory, routers, schemas, auth."""
