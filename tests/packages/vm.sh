# tests/packages/vm.sh — sourced by tests/packages/run: part b, the trixie packages in a
# bare Debian 13 root booted with real systemd (vm/systemd/build-root.sh with
# LECTOR_VM_SUITE=trixie LECTOR_VM_BARE=1, vm/systemd/boot.sh --net), the guest side
# being tests/packages/guest.sh. The VM cache is this suite's own ($CACHE/vm): one
# root is kept per cache, and tests/systemd's stays untouched.

part_b() {
  local v1="$debs_trixie" v2="$W/debs-trixie-v2" base stage t rc version
  # The upgrade's packages: the same programs packaged again with a higher version.
  version="$(dpkg-deb -f "$v1"/lectord_*_amd64.deb Version)"
  t=$SECONDS
  if LECTOR_PACKAGE_COMPRESSION=gzip "$repo/scripts/package" --dist trixie --arch amd64 --bin "$(trixie_bin)" --version "$version.1" --out "$v2" --no-lintian \
       > "$W/package-v2.log" 2>&1; then
    ok "rebuilt the trixie packages as $version.1 for the upgrade ($((SECONDS - t)) s)"
  else tail -20 "$W/package-v2.log"; notok "rebuilding the trixie packages"; return; fi
  t=$SECONDS
  base="$(LECTOR_VM_CACHE="$CACHE/vm" LECTOR_VM_SUITE=trixie LECTOR_VM_BARE=1 "$repo/vm/systemd/build-root.sh")" \
    || { notok "building the bare trixie root (vm/systemd/build-root.sh)"; return; }
  note "bare trixie root: $base ($((SECONDS - t)) s)"
  stage="$W/root-b"; cp -a "$base" "$stage"
  install -d "$stage/lector-test/v1" "$stage/lector-test/v2"
  cp "$v1"/*_amd64.deb "$v1"/*_all.deb "$stage/lector-test/v1/"
  cp "$v2"/*_amd64.deb "$v2"/*_all.deb "$stage/lector-test/v2/"
  install -m 0755 "$here/guest.sh" "$stage/lector-test/guest-test.sh"
  install -m 0644 "$repo/tests/systemd/lector-vmtest.service" "$stage/etc/systemd/system/lector-vmtest.service"
  ln -sf ../lector-vmtest.service "$stage/etc/systemd/system/multi-user.target.wants/lector-vmtest.service"
  # The network: systemd-networkd with DHCP on qemu's user-mode network, its DNS.
  install -d "$stage/etc/systemd/network"
  printf '[Match]\nName=en* eth*\n\n[Network]\nDHCP=yes\n' > "$stage/etc/systemd/network/20-wired.network"
  ln -sf /lib/systemd/system/systemd-networkd.service "$stage/etc/systemd/system/multi-user.target.wants/systemd-networkd.service"
  rm -f "$stage/etc/resolv.conf"; echo "nameserver 10.0.2.3" > "$stage/etc/resolv.conf"
  # debootstrap writes no localhost line (the installer does): without it mosquitto_sub
  # and lector-mqtt's mqtt://localhost failed with "Lookup error".
  printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tlector-vm\n' > "$stage/etc/hosts"
  t=$SECONDS
  LECTOR_VM_CACHE="$CACHE/vm" "$repo/vm/systemd/boot.sh" --net --memory 2048 --free-mb 2048 \
    --timeout "${LECTOR_PACKAGES_VM_TIMEOUT:-3600}" "$stage" > "$W/guest.out"
  rc=$?
  cat "$W/guest.out"
  note "guest: exit $rc after $((SECONDS - t)) s"
  local gp gf; gp=$(grep -c '^ok - ' "$W/guest.out"); gf=$(grep -c '^not ok - ' "$W/guest.out")
  pass=$((pass + gp)); fail=$((fail + gf))
  [[ $rc -ne 0 && $gf -eq 0 ]] && notok "the guest ended without a result (exit $rc)"
  ((gp + gf > 0)) || notok "the guest reported no checks"
}
