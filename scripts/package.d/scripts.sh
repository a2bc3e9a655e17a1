# scripts/package.d/scripts.sh — sourced by scripts/package: the maintainer scripts
# (scripts/package.d/maint/PKG.{postinst,prerm,postrm}), copied into DEBIAN/ as they are.
# They do what debhelper's dh_installsysusers and dh_installsystemd snippets do (the
# same commands: systemd-sysusers, deb-systemd-helper, deb-systemd-invoke), each step
# guarded so that a chroot without a running systemd installs, upgrades and purges.

write_maintainer_scripts() {
  local pkg kind
  for pkg in lectord lector-mqtt lector-http; do
    for kind in postinst prerm postrm; do
      [[ -f "$repo/scripts/package.d/maint/$pkg.$kind" ]] || continue
      install -m 0755 "$repo/scripts/package.d/maint/$pkg.$kind" "$work/stage/$pkg/DEBIAN/$kind"
    done
  done
}
