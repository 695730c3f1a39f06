# The formd image for those who build with Docker: the same image as `make image`
# (which needs no Docker), from an empty base. Build it with
#   docker build --build-arg VERSION=v0.1.0 --build-arg COMMIT=$(git rev-parse HEAD) \
#     --build-arg BUILT=$(git show -s --format=%cI HEAD) -t formd:v0.1.0 .
# Our CI has no Docker daemon and does not run this file (docs/deploy.md).

FROM golang:1.26-bookworm AS build
# What `formd version`, /healthz and the startup log report, as the Makefile's LDFLAGS.
ARG VERSION=devel
ARG COMMIT=
ARG BUILT=
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static, with no build paths; the build context has no .git, so the version
# comes from the arguments above, not from Go's VCS stamping.
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-X main.version=${VERSION} -X main.commit=${COMMIT} -X main.buildTime=${BUILT}" \
      -o /out/usr/local/bin/formd ./cmd/formd
# The root file system beside the binary: the machine's CA certificates (Debian's
# ca-certificates), a non-root user and group 65532, its data folder and /tmp,
# where large uploads are spooled while they arrive.
RUN mkdir -p /out/etc/ssl/certs /out/var/lib/formd /out/tmp \
 && cp /etc/ssl/certs/ca-certificates.crt /out/etc/ssl/certs/ \
 && echo 'formd:x:65532:65532:formd:/var/lib/formd:/sbin/nologin' > /out/etc/passwd \
 && echo 'formd:x:65532:' > /out/etc/group \
 && chown 65532:65532 /out/var/lib/formd && chmod 0750 /out/var/lib/formd \
 && chmod 1777 /out/tmp

FROM scratch
ARG VERSION=devel
ARG COMMIT=
ARG SOURCE=https://github.com/formd/formd
ARG LICENSES=NOASSERTION
COPY --from=build /out/ /
USER 65532:65532
ENV FORMD_LISTEN_ADDR=0.0.0.0:8080
ENV FORMD_DATA_DIR=/var/lib/formd
ENV FORMD_MAIL_SPOOL=/var/lib/formd/mail
WORKDIR /var/lib/formd
VOLUME ["/var/lib/formd"]
STOPSIGNAL SIGTERM
EXPOSE 8080/tcp
LABEL org.opencontainers.image.title="formd" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}" \
      org.opencontainers.image.licenses="${LICENSES}"
ENTRYPOINT ["/usr/local/bin/formd"]
CMD ["serve"]
