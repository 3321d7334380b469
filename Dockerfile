# The production image: one image for web, worker and beat (see compose.yaml).
FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY memoryapp memoryapp
COPY conversations conversations
COPY tasks tasks
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 && pip install .
COPY . .
RUN useradd --create-home memoryapp && mkdir -p /app/var && chown memoryapp /app/var
USER memoryapp
EXPOSE 8000
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "memoryapp.asgi:application"]
