# The container image (docs/fleet.md); included by the Makefile.  None of
# these is part of "make check": they need podman (apt-get install podman).
#
#   make base-image   localhost/kernel-delay-base:bookworm: Debian 12 from
#                     debootstrap, imported (no registry; root; minutes)
#   make image        localhost/kernel-delay:VERSION from Containerfile,
#                     built with no network (--network=none)
#   (each installs what it needs first: tools/install-deps.sh image)
#   make check-image  builds both, runs the image against a host process as
#                     docs/fleet.md says, and validates deploy/kubernetes/
#                     against the Kubernetes schemas, offline (root; eBPF:
#                     under the heavy lock where machines are shared)

IMAGE ?= localhost/kernel-delay:$(VERSION)
# Expanded where used, after image-deps installed runc: the flags depend
# on it.
PODMAN ?= podman $(shell tools/podman-flags.sh global)
PODMAN_LIMITS ?= $(shell tools/podman-flags.sh limits)
BASE_IMAGE ?= localhost/kernel-delay-base:bookworm

.PHONY: base-image image check-image image-deps

# What a fresh machine lacks (podman, runc, debootstrap, OVS, npm): first.
image-deps:
	tools/install-deps.sh build image

base-image: image-deps deb
	@if podman image exists $(BASE_IMAGE) && [ "$(REBASE)" != 1 ]; then \
		echo "$(BASE_IMAGE) exists (REBASE=1 makes it again)"; \
	else \
		tools/base-image.sh $(DEB_DIR)/kernel-delay_$(VERSION)_*.deb \
			$(BASE_IMAGE); \
	fi

image: image-deps deb base-image
	$(PODMAN) build --network=none --pull=never $(PODMAN_LIMITS) \
		--build-arg BASE=$(BASE_IMAGE) -f Containerfile -t $(IMAGE) .

check-image: image
	PODMAN="$(PODMAN)" PODMAN_LIMITS="$(PODMAN_LIMITS)" \
		tests/test-image.sh $(IMAGE)
