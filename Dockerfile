# One image for every service of docker-compose.yml: migrate, api, worker, sweeper.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

# bubblewrap: the sandbox submissions run in; g++, OpenJDK 17 and kotlinc: the toolchains of
# C++, Java and Kotlin submissions, compiled and run in that sandbox. The worker and the
# runner need them; the API lists them (GET /languages) and refuses a language whose
# toolchain is missing: one image keeps both sides agreeing. The JDK's man pages directory
# must exist for its postinst on a slim image.
RUN mkdir -p /usr/share/man/man1 \
    && apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap g++ openjdk-17-jdk-headless kotlin \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY judge judge
COPY problems problems
COPY config config
COPY store store
COPY api api
COPY worker worker
COPY similarity similarity
COPY lti lti
RUN pip install .

# The built-in problem packages (judge/ is installed as a package; they stay beside it here).
ENV JUDGE_DATA_DIR=/data JUDGE_HOST=0.0.0.0 JUDGE_PORT=8000 JUDGE_PROBLEMS_DIR=/app/problems
EXPOSE 8000
CMD ["python", "-m", "api", "web"]
