// Package deploy has no code of its own. Its tests hold the deployment files
// (the Dockerfile, compose.yaml, the Helm chart under helm/mnemo, the systemd
// unit and .goreleaser.yaml) to the repository they deploy: the image's build
// command must build this module, and every variable they set must be one
// mnemo reads. `make check-deploy` also renders the chart and checks the result.
package deploy
