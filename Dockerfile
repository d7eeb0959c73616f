# Verdict: the API, the worker and the `verdict` command in one image.
#   docker build -t verdict .
#   docker run -p 8080:8080 -v verdict-data:/data verdict            # API + worker, SQLite in /data
# Scaled out (PostgreSQL, Redis, two API instances, a worker): compose.yaml, and docs/operating.md "Scaling out".

# --- build: every dependency, the TypeScript build and the console bundle (npm ci runs the prepare scripts) ---
FROM node:20-bookworm AS build
WORKDIR /app
# the workspaces' prepare scripts (tsc, the console bundle) need their sources: copy everything, then install
COPY . .
RUN npm ci --no-audit --no-fund \
  && npm prune --omit=dev --no-audit --no-fund \
  && rm -rf packages/*/test bench docs

# --- runtime: production dependencies and the compiled service, Debian's ffmpeg, an unprivileged user ---
FROM node:20-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg ca-certificates \
  && rm -rf /var/lib/apt/lists/* \
  && groupadd --system verdict \
  && useradd --system --gid verdict --home-dir /data --shell /usr/sbin/nologin verdict \
  && mkdir -p /data && chown verdict:verdict /data
WORKDIR /app
COPY --from=build --chown=root:root /app /app
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=8080 \
  VERDICT_DATA_DIR=/data
USER verdict
VOLUME ["/data"]
EXPOSE 8080
# /readyz: 200 once the database answers and the models are loaded, 503 while starting or shutting down.
# (`verdict worker` serves no HTTP: compose.yaml disables this check for it.)
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "packages/server/dist/bin/verdict.js"]
CMD ["serve"]
