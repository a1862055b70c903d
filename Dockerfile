# syntax=docker/dockerfile:1
# mnemo's container image: a static binary on distroless, run as non-root.
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
RUN --mount=type=cache,target=/root/.cache/go-build CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/mnemo ./cmd/mnemo

# static-debian12 has CA certificates and tzdata, and no shell: there is no
# HEALTHCHECK here because nothing could run it; orchestrators probe
# /healthz and /readyz on port 9464 instead.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/mnemo /mnemo
USER 65532:65532
# MNEMO_HTTP_ADDR's default (127.0.0.1) would be unreachable from outside the container.
ENV MNEMO_HTTP_ADDR=0.0.0.0:9464
EXPOSE 9464
ENTRYPOINT ["/mnemo"]
CMD ["serve"]
