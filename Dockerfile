# The production image: one image for web, worker and beat (see compose.yaml).
# What the build context holds is decided by .dockerignore (never var/, .venv/, node_modules/, .git/).

# Front-end packages from npm, exactly as package-lock.json pins them, built by the script that
# scripts/bootstrap.sh runs too.
FROM node:20-slim AS static
WORKDIR /app
# Production: npm leaves out the devDependencies (axe-core, which only the browser tests load).
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY scripts/build-static.sh scripts/
RUN scripts/build-static.sh

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 STATIC_ROOT=/app/staticfiles
WORKDIR /app
COPY pyproject.toml README.md ./
COPY memoryapp memoryapp
COPY conversations conversations
COPY tasks tasks
RUN pip install .
COPY . .
COPY --from=static /app/node_modules node_modules
# Static files collected at build time (whitenoise serves them from STATIC_ROOT). Only the settings are
# loaded: the store URLs are placeholders nothing connects to, and the key is given so none is generated
# into the image.
RUN DATABASE_URL=postgres://build@localhost:5432/build REDIS_URL=redis://localhost:6379/0 \
    SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput
RUN useradd --create-home memoryapp && mkdir -p /app/var && chown memoryapp /app/var
USER memoryapp
EXPOSE 8000
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "memoryapp.asgi:application"]
