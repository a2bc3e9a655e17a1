#!/bin/bash
# The guest side of tests/packages/run, part b: runs under systemd (PID 1) in a bare
# Debian 13 root (vm/systemd, LECTOR_VM_BARE=1) with a network, installs Lector's
# packages with apt from /lector-test/v1 (their dependencies from Debian's archive),
# upgrades to /lector-test/v2, removes, purges. Prints "ok - ..." / "not ok - ..." and
# "# ..." notes, then "LECTOR-VM-EXIT <failures>".
export PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive
echo "LECTOR-VM-BEGIN"
pass=0; fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
notok() { echo "not ok - $*"; fail=$((fail + 1)); }
note() { echo "# $*"; }
show() { systemctl show -p "$2" --value "$1"; }
wait_for() { local n=$(( $1 * 2 )); shift; while ((n-- > 0)); do "$@" && return 0; sleep 0.5; done; return 1; }
finish() {
  echo "--- journal (lectord, lector-mqtt) ---"
  journalctl -b --no-pager -o short-monotonic -u lectord.service -u lectord.socket -u lector-mqtt.service | tail -40
  echo "guest: $pass passed, $fail failed"
  echo "LECTOR-VM-EXIT $fail"
  exit 0
}
T=/lector-test
PKGS="lectord lector lector-mqtt lector-http lector-models"
note "guest up after $(cut -d' ' -f1 /proc/uptime) s (guest clock)"
snapshot() {
  find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /run -o -path /lector-test \
      -o -path /var/cache/apt -o -path /var/lib/apt/lists -o -path /var/log -o -path /var/cache/debconf \) -prune -o -print | sort
}
installed() { dpkg-query -W -f='${Package} ${Installed-Size}\n' | sort; }

# ---- the network, apt ------------------------------------------------------------------
if wait_for 120 apt-get update -qq; then ok "network up, apt-get update from Debian's archive"
else notok "no network or no archive (apt-get update)"; finish; fi
snapshot > /tmp/before.txt; installed > /tmp/pkgs-before.txt

# ---- install -----------------------------------------------------------------------------
t=$SECONDS
cd $T/v1
if apt-get install -y ./lectord_*.deb ./lector_*.deb ./lector-models_*.deb ./lector-mqtt_*.deb ./lector-http_*.deb > /tmp/install.log 2>&1; then
  ok "apt install ./lectord_*.deb ./lector_*.deb ./lector-models_*.deb ./lector-mqtt_*.deb ./lector-http_*.deb ($((SECONDS - t)) s)"
else
  tail -20 /tmp/install.log; notok "apt install of the packages failed"; finish
fi
cd /
installed > /tmp/pkgs-after.txt
closure=$(join -v 2 <(cut -d' ' -f1 /tmp/pkgs-before.txt) /tmp/pkgs-after.txt | grep -Ev '^(lectord|lector|lector-mqtt|lector-http|lector-models) ' \
  | awk '{ n++; kib += $2; names = names " " $1 } END { printf "%d packages, %.1f MiB:%s", n, kib / 1024, names }')
note "trixie closure (apt pulled in, with Recommends): $closure"
for p in $PKGS; do dpkg -L $p; done | sort -u > /tmp/files.txt
[[ "$(show lectord.socket ActiveState)" == active && "$(systemctl is-enabled lectord.socket)" == enabled ]] \
  && ok "lectord.socket enabled and listening after install" || notok "lectord.socket: $(show lectord.socket ActiveState), $(systemctl is-enabled lectord.socket)"
id -nG lector | grep -qw video && ok "user lector (group video) from sysusers" || notok "user lector: $(id lector 2>&1)"

# ---- the demo through the service --------------------------------------------------------
# The demo as the camera. Under TCG one read takes longer than the default 3 s deadline,
# and no TEXT came in 300 s (as tests/systemd found); Tesseract's layout, as there: the
# detector's network is slower still under TCG. The packages are this test's subject.
printf '# tests/packages: the demo as the camera\n[camera]\ndemo = true\ndeadline_ms = 30000\nlayout = tesseract\n' > /etc/lector/lectord.conf
timeout 300 lector watch --count 2 --json > /tmp/watch.json 2> /tmp/watch.err
if grep '"TEXT"' /tmp/watch.json | grep -q "LECTOR READS TEXT"; then
  ok "lector watch (socket-activated lectord.service, demo configured in /etc/lector/lectord.conf) shows the demo's text"
else
  notok "lector watch: $(head -c 300 /tmp/watch.err) $(head -c 300 /tmp/watch.json)"
fi
[[ "$(show lectord.service ActiveState)" == active ]] && ok "lectord.service active" || notok "lectord.service: $(show lectord.service ActiveState)"

# ---- the networks on Debian 13's ONNX Runtime ---------------------------------------------
# lectord runs lector-models' networks on Debian's libonnxruntime (1.21); a lectord built
# without it, or a model it cannot load, would read every line with Tesseract. One frame
# of the demo, its lines read by the neural recognizer alone, beside the service (a socket
# of its own).
ldd /usr/bin/lectord | grep -q libonnxruntime && ok "the installed lectord links Debian's ONNX Runtime: $(ldd /usr/bin/lectord | grep -o 'libonnxruntime[^ ]*' | head -1)" \
  || notok "the installed lectord does not link libonnxruntime"
timeout 900 lectord --demo --stdout --max-frames 1 --deadline-ms 600000 --layout detector --engine neural \
  --socket /tmp/neural.sock > /tmp/neural.json 2> /tmp/neural.err
if grep '"class":"TEXT"' /tmp/neural.json | grep '"engine":"neural"' | grep -q "LECTOR READS TEXT"; then
  ok "the installed lectord reads the demo's lines with the neural line recognizer (lector-models on ONNX Runtime)"
else
  notok "neural line recognizer: $(grep -m2 -E '^(error|warning)' /tmp/neural.err | cut -c1-300) $(head -c 200 /tmp/neural.json)"
fi

# ---- lector-mqtt reaches a broker ---------------------------------------------------------
if apt-get install -y mosquitto mosquitto-clients > /tmp/mosquitto.log 2>&1 && wait_for 30 systemctl is-active -q mosquitto; then
  systemctl enable --now lector-mqtt.service
  timeout 180 mosquitto_sub -h localhost -v -t 'lector/#' -C 3 > /tmp/mqtt.txt 2>&1
  if grep -q '^lector/' /tmp/mqtt.txt; then ok "lector-mqtt (enabled by hand, broker mqtt://localhost from /etc/lector/mqtt.conf) publishes: $(head -1 /tmp/mqtt.txt | cut -c1-100)"
  else notok "no MQTT message from lector-mqtt: $(cat /tmp/mqtt.txt) $(journalctl -b -u lector-mqtt --no-pager | tail -5)"; fi
else
  tail -5 /tmp/mosquitto.log; notok "installing mosquitto"
fi

# ---- upgrade: the edited conffile stays, running units restart -----------------------------
pid=$(show lectord.service MainPID); mpid=$(show lector-mqtt.service MainPID)
cd $T/v2
apt-get install -y ./lectord_*.deb ./lector_*.deb ./lector-models_*.deb ./lector-mqtt_*.deb ./lector-http_*.deb > /tmp/upgrade.log 2>&1 \
  || { tail -10 /tmp/upgrade.log; notok "apt install of the rebuilt packages failed"; }
cd /
note "upgraded to $(dpkg-query -W -f='${Version}' lectord)"
grep -q '^demo = true' /etc/lector/lectord.conf && ok "upgrade kept the edited /etc/lector/lectord.conf" || notok "upgrade lost the edited conffile"
wait_for 60 test "$(show lectord.service ActiveState)" = active
npid=$(show lectord.service MainPID); nmpid=$(show lector-mqtt.service MainPID)
[[ "$npid" != 0 && "$npid" != "$pid" ]] && ok "upgrade restarted lectord.service (pid $pid -> $npid)" || notok "lectord.service not restarted: $pid -> $npid"
[[ "$nmpid" != 0 && "$nmpid" != "$mpid" ]] && ok "upgrade restarted lector-mqtt.service (pid $mpid -> $nmpid)" || notok "lector-mqtt not restarted: $mpid -> $nmpid"

# ---- remove: stopped, configuration kept --------------------------------------------------
apt-get remove -y $PKGS > /tmp/remove.log 2>&1 || { tail -10 /tmp/remove.log; notok "apt remove failed"; }
st="$(show lectord.service ActiveState) $(show lectord.socket ActiveState) $(show lector-mqtt.service ActiveState)"
[[ "$st" == "inactive inactive inactive" ]] && ok "apt remove stopped lectord.service, lectord.socket, lector-mqtt.service" || notok "after remove: $st"
grep -q '^demo = true' /etc/lector/lectord.conf && [[ -f /etc/lector/mqtt.conf ]] \
  && ok "apt remove kept /etc/lector/lectord.conf (edited) and mqtt.conf" || notok "apt remove lost the configuration"

# ---- purge: nothing left -----------------------------------------------------------------
# apt purge names what dpkg still knows: after apt remove a package without conffiles
# (lector, lector-models), installed from a file and in no archive, is gone, and apt
# refused the whole command ("Unable to locate package lector").
left_pkgs=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $PKGS 2>/dev/null | awk '$1 != "un" { print $2 }' | tr '\n' ' ')
note "after apt remove, dpkg still knows: ${left_pkgs:-none}"
apt-get purge -y $left_pkgs mosquitto mosquitto-clients > /tmp/purge.log 2>&1 && apt-get autoremove --purge -y >> /tmp/purge.log 2>&1 \
  || { tail -10 /tmp/purge.log; notok "apt purge failed"; }
owned=""; left=""
while read -r f; do
  [[ -z "$f" || "$f" == / ]] && continue
  dpkg -S "$f" 2>/dev/null | grep -Eq "(^|, )($(echo $PKGS | tr ' ' '|'))(,|:)" && owned+=" $f"
  [[ -d "$f" && ! -L "$f" ]] && continue
  [[ -e "$f" || -L "$f" ]] && left+=" $f"
done < /tmp/files.txt
# (lector-vmtest.service, this test's own unit, is not the packages' state.)
state=$(ls -d /etc/lector /run/lector /run/lector-http /var/lib/lector /etc/systemd/system/*/lector[d-]* \
  /var/lib/systemd/deb-systemd-helper-enabled/*lector[d-]* 2>/dev/null | grep -v lector-vmtest)
# autoremove keeps what Debian's own installed packages recommend (trixie's
# libsystemd-shared recommends the libraries it dlopens: libarchive, libdw, libelf...);
# those are purged by name, so that the diff below compares with the root as it was.
kept=$(join -v 2 <(cut -d' ' -f1 /tmp/pkgs-before.txt) <(installed) | cut -d' ' -f1 | tr '\n' ' ')
note "kept by apt autoremove (recommended by packages of the root): ${kept:-none}"
if grep -Eqw "$(echo $PKGS | tr ' ' '|')" <<<"$kept"; then notok "a package of Lector is still installed: $kept"; fi
[[ -z "$kept" ]] || apt-get purge -y $kept >> /tmp/purge.log 2>&1 || { tail -5 /tmp/purge.log; notok "apt purge of $kept failed"; }
snapshot > /tmp/after.txt
diff=$(comm -3 /tmp/before.txt /tmp/after.txt | grep -Ev '^[[:space:]]*/var/lib/(dpkg|apt)/|^[[:space:]]*/etc/(passwd|group|shadow|gshadow)-$|^[[:space:]]*/etc/ld.so.cache$|^[[:space:]]*/var/lib/systemd/(catalog|random-seed|timers|linger|pstore|backlight)|^[[:space:]]*/var/cache/ldconfig')
# A directory the root's own packages hold (dpkg -S) is the root's: the bare root was
# made without /usr/share/doc, man and locale, which dpkg creates again for the first
# package with files there and leaves, as other installed packages list them.
diff=$(while IFS= read -r d; do p="${d#"${d%%[![:space:]]*}"}"; [[ -d "$p" && ! -L "$p" ]] && dpkg -S "$p" >/dev/null 2>&1 && continue; [[ -n "$d" ]] && echo "$d"; done <<<"$diff")
[[ -z "$owned" ]] && ok "apt purge: dpkg -S finds none of the packages' $(wc -l < /tmp/files.txt) paths" || notok "dpkg -S still finds:$owned"
if [[ -z "$left" && -z "$state" && -z "$diff" ]]; then
  ok "apt purge + autoremove --purge: no file of the packages, no /etc/lector, /run/lector or unit state; the file-system diff against the root before installing is empty"
else
  notok "after purge: files:${left:- none}; state: ${state:-none}; diff: $(echo "$diff" | head -20 | tr '\n' ' ')"
fi
finish
