# One image for every service of docker-compose.yml: migrate, api, worker, sweeper.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

# bubblewrap: the sandbox submissions run in (the worker needs it; one image keeps it simple).
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY judge judge
COPY config config
COPY store store
COPY api api
COPY worker worker
RUN pip install .

ENV JUDGE_DATA_DIR=/data JUDGE_HOST=0.0.0.0 JUDGE_PORT=8000
EXPOSE 8000
CMD ["python", "-m", "api", "web"]
