# Packages, and the drop-in path for Open vSwitch's kernel_delay.py
# (docs/install.md, "Install from a package"); included by the Makefile.
#
#   make dist            build/kernel_delay-VERSION.tar.gz of the work tree
#   make deb             build/deb/kernel-delay_VERSION_ARCH.deb, linted
#   make srpm            build/rpm/kernel_delay-VERSION-1.src.rpm, linted
#   make check-package   installs the .deb in a fresh Debian 12 chroot,
#                        runs it there, purges it (root; minutes when cold)
#   make install-compat  OVS's usdt-scripts/kernel_delay.py runs this tool
#                        (FORCE=1 replaces one that is not ours, keeping it)
#   make uninstall-compat  removes it, putting back what it replaced

DIST_TARBALL = build/kernel_delay-$(VERSION).tar.gz
DEB_DIR = build/deb
RPM_DIR = build/rpm
USDT_SCRIPTS_DIR = $(PREFIX)/share/openvswitch/scripts/usdt
FORCE ?= 0

.PHONY: dist deb srpm check-package install-compat uninstall-compat

dist:
	tools/dist.sh kernel_delay $(VERSION) $(DIST_TARBALL)

deb: dist
	tools/build-deb.sh $(DIST_TARBALL) $(DEB_DIR)

srpm: dist
	tools/build-srpm.sh $(DIST_TARBALL) $(RPM_DIR)

check-package: deb
	tests/test-package.sh $(DEB_DIR)

install-compat:
	FORCE=$(FORCE) tools/install-compat.sh install \
		$(DESTDIR)$(USDT_SCRIPTS_DIR) $(SBINDIR)

uninstall-compat:
	tools/install-compat.sh uninstall $(DESTDIR)$(USDT_SCRIPTS_DIR) \
		$(SBINDIR)
