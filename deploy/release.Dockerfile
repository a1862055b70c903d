# syntax=docker/dockerfile:1
# The release image: goreleaser (dockers_v2 in .goreleaser.yaml) builds the
# binaries for each platform and lays them out as $TARGETPLATFORM/<binary>;
# this file only ships them, on the same base as ../Dockerfile's final stage
# (deploy/deploy_test.go checks that the two agree).
FROM gcr.io/distroless/static-debian12:nonroot
ARG TARGETPLATFORM
# mnemo-eval beside mnemo: `mnemo eval` runs it from there.
COPY $TARGETPLATFORM/mnemo $TARGETPLATFORM/mnemo-eval /
USER 65532:65532
# MNEMO_HTTP_ADDR's default (127.0.0.1) would be unreachable from outside the container.
ENV MNEMO_HTTP_ADDR=0.0.0.0:9464
EXPOSE 9464
ENTRYPOINT ["/mnemo"]
CMD ["serve"]
