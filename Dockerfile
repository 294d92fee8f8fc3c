# provgraph in a container: the package built from this checkout (npm pack), installed with its production
# dependencies only, run as `provgraph serve`. Not built or run by the test suite (no container runtime
# there): see docs/operating/deployment.md before relying on it.
#
#   docker build -t provgraph .
#   docker run -p 4000:4000 -v provgraph-data:/data -e PROVGRAPH_BOOTSTRAP_TOKEN=pgt_… provgraph

FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles SQLite when no prebuilt binary can be downloaded
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund && npm pack --pack-destination /tmp \
 && mkdir /app && cd /app && echo '{"private":true}' > package.json \
 && npm install --omit=dev --no-audit --no-fund /tmp/provgraph-*.tgz

FROM node:20-bookworm-slim
COPY --from=build /app /app
RUN mkdir /data && chown node:node /data
USER node
WORKDIR /data
# Listening beyond loopback needs an API token: set PROVGRAPH_BOOTSTRAP_TOKEN (or create one with
# `docker run … provgraph token create …` on the same volume) before the first start.
ENV NODE_ENV=production MALLOC_ARENA_MAX=2 HOST=0.0.0.0 PORT=4000 DATABASE_URL=file:/data/provgraph.db
VOLUME /data
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:4000/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["/app/node_modules/.bin/provgraph"]
CMD ["serve"]
