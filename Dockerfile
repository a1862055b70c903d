# syntax=docker/dockerfile:1
# mnemo's container image: static binaries on distroless, run as non-root.
# Releases build theirs from goreleaser's binaries with deploy/release.Dockerfile.
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t mnemo .
# deploy/deploy_test.go runs this stage's `go build` line on the host, so keep
# it a single line.

FROM golang:1.26 AS build
WORKDIR /src
# Modules first: this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# -tags grpcnotrace: the Makefile's GOTAGS says why.
RUN --mount=type=cache,target=/root/.cache/go-build CGO_ENABLED=0 go build -trimpath -tags grpcnotrace -ldflags "-s -w -X main.version=${VERSION}" -o /out/ ./cmd/mnemo ./cmd/mnemo-eval

# static-debian12 has CA certificates and tzdata, and no shell: there is no
# HEALTHCHECK here because nothing could run it; orchestrators probe
# /healthz and /readyz on port 9464 instead.
FROM gcr.io/distroless/static-debian12:nonroot
# mnemo-eval beside mnemo: `mnemo eval` runs it from there.
COPY --from=build /out/mnemo /out/mnemo-eval /
USER 65532:65532
# MNEMO_HTTP_ADDR's default (127.0.0.1) would be unreachable from outside the container.
ENV MNEMO_HTTP_ADDR=0.0.0.0:9464
EXPOSE 9464
ENTRYPOINT ["/mnemo"]
CMD ["serve"]
