#!/bin/bash
# The guest side of tests/systemd/run: runs under systemd (PID 1) in the VM, with
# Lector installed by scripts/install.sh, and checks the units against the vivid driver.
# Prints "ok - ..." / "not ok - ..." lines, then "LECTOR-VM-EXIT <failures>".
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
echo "LECTOR-VM-BEGIN"
pass=0; fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
notok() { echo "not ok - $*"; fail=$((fail + 1)); }
check() { local d="$1"; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }
show() { systemctl show -p "$2" --value "$1"; }
finish() {
  echo "--- journal (lectord) ---"; journalctl -b --no-pager -o short-monotonic -u lectord.service -u lectord.socket -u 'lectord@*' | tail -60
  echo "guest: $pass passed, $fail failed"
  echo "LECTOR-VM-EXIT $fail"
  exit 0
}
# wait_for SECONDS CMD...: poll until CMD succeeds
wait_for() { local n=$(( $1 * 5 )); shift; while ((n-- > 0)); do "$@" && return 0; sleep 0.2; done; return 1; }
EXPECT="${EXPECT:-LECTOR}"
echo "# guest up after $(cut -d' ' -f1 /proc/uptime) s (guest clock)"

# ---- install results ----------------------------------------------------------------
check "user lector exists and is in group video" bash -c 'id -nG lector | grep -qw video'
for u in lectord.service lectord.socket lectord@.service; do
  check "$u is where the install put it" test -f /usr/local/lib/systemd/system/$u
done
out="$(systemd-analyze verify lectord.service lectord.socket 'lectord@dev-video0.service' 2>&1)"
if [[ -z "$out" ]]; then ok "systemd-analyze verify: clean for lectord.service, lectord.socket, lectord@.service"
else notok "systemd-analyze verify: $out"; fi

# ---- from boot, with rules and no client (lectord.service enabled; tests/systemd/run) ---
booted() { [[ "$(systemctl is-enabled lectord.service)" == enabled && "$(show lectord.service ActiveState)" == active ]]; }
if wait_for 60 booted; then ok "lectord.service is enabled and active from boot, before any client"
else notok "lectord.service after boot: $(systemctl is-enabled lectord.service), $(show lectord.service ActiveState)"; fi
t0=$SECONDS
if wait_for 240 test -s /var/lib/lector/boot-hook.out; then
  ok "after boot, with no client, the rule's hook ran: '$(head -1 /var/lib/lector/boot-hook.out)' ($((SECONDS - t0)) s after the checks began)"
else notok "after boot no hook ran in 240 s: $(lector status --json 2>&1 | head -c 400)"; fi
kept() { lector history --db /var/lib/lector/history.sqlite --json 2>/dev/null | grep -q '"rule":"hello"'; }
if wait_for 30 kept; then ok "its MATCH is a row of the history (/var/lib/lector/history.sqlite)"
else notok "no row of rule hello in the history: $(lector history --db /var/lib/lector/history.sqlite 2>&1 | head -c 300)"; fi
check "STATUS: the camera runs for its rules, nobody watching" bash -c 'lector status --json | grep -q "\"running_reason\":\"rules\""'
systemctl disable --now lectord.service lectord.socket 2>&1 | sed 's/^/# /'
cp /lector-test/lectord.conf.vivid /etc/lector/lectord.conf

# ---- vivid in loop mode, showing a frame with known text ------------------------------
modprobe vivid n_devs=1 node_types=0x101 num_inputs=1 input_types=0x2 num_outputs=1 output_types=0x0 \
  || { notok "modprobe vivid"; finish; }
udevadm settle
check "vivid capture node /dev/video0 belongs to group video" bash -c '[[ "$(stat -c %G /dev/video0)" == video ]]'
v4l2-ctl -d /dev/video0 -c osd_text_mode=2
# vivid_loop, vivid_write: vivid's loop, as every guest sets it up (tests/vm/vivid-loop.sh);
# here the S-Video input (loop_video on Linux <= 6.6, the "S-Video 000-0 Is Connected To"
# menu on 6.8 and later).
. /lector-test/vivid-loop.sh
vivid_loop /dev/video0 s_video || notok "no loop control on vivid (loop_video, s_video_000_0_is_connected_to)"
v4l2-ctl -d /dev/video0 -v width=720,height=576,pixelformat=YUYV
v4l2-ctl -d /dev/video1 -x width=720,height=576,pixelformat=YUYV
vivid_write /dev/video1 /lector-test/frame.yuyv
looper=$!
sleep 1

# ---- socket activation ----------------------------------------------------------------
systemctl start lectord.socket
check "lectord.socket is listening" test "$(show lectord.socket ActiveState)" = active
check "the socket is srw-rw---- root:lector" bash -c '[[ "$(stat -c "%A %U:%G" /run/lector/lector.sock)" == "srw-rw---- root:lector" ]]'
check "lectord.service is not running before a client connects" test "$(show lectord.service ActiveState)" = inactive

t0=$SECONDS
timeout 180 lector watch --count 2 --json > /tmp/watch.json 2> /tmp/watch.err
rc=$?
echo "# lector watch: exit $rc after $((SECONDS - t0)) s, $(grep -c '"TEXT"' /tmp/watch.json) TEXT lines"
check "lector watch activated lectord.service (now active)" test "$(show lectord.service ActiveState)" = active
if grep '"TEXT"' /tmp/watch.json | grep -q "$EXPECT"; then
  ok "lector watch received TEXT containing '$EXPECT' from /dev/video0 (capture under the full hardening)"
else
  notok "no TEXT with '$EXPECT' (exit $rc): $(head -c 600 /tmp/watch.json) $(head -c 400 /tmp/watch.err)"
fi

# ---- STATUS= with live numbers while a client watches ---------------------------------
timeout 300 lector watch > /dev/null 2>&1 &
watcher=$!
status_live() { show lectord.service StatusText | grep -Eq '/dev/video0: streaming [1-9][0-9]*\.[0-9] fps, [0-9]+\.[0-9] recognized/s, latency [0-9]+ ms'; }
if wait_for 60 status_live; then ok "StatusText: $(show lectord.service StatusText)"
else notok "StatusText has no live numbers: '$(show lectord.service StatusText)'"; fi
kill $watcher 2>/dev/null; wait $watcher 2>/dev/null

# ---- honest watchdog: a stopped daemon sends no WATCHDOG=1 and is restarted ------------
pid="$(show lectord.service MainPID)"
restarts="$(show lectord.service NRestarts)"
echo "# WatchdogUSec=$(show lectord.service WatchdogUSec) MainPID=$pid NRestarts=$restarts"
t0=$SECONDS
if [[ "$pid" =~ ^[1-9][0-9]*$ ]]; then kill -STOP "$pid"; else notok "no lectord main process to stop"; fi
restarted() { local p; p="$(show lectord.service MainPID)"; [[ "$(show lectord.service NRestarts)" -gt "$restarts" && "$p" != 0 && "$p" != "$pid" ]]; }
if wait_for 90 restarted; then ok "SIGSTOP: the watchdog restarted lectord after $((SECONDS - t0)) s (MainPID $pid -> $(show lectord.service MainPID))"
else notok "SIGSTOP: no restart within 90 s (NRestarts $(show lectord.service NRestarts))"; fi
check "the journal names the watchdog" bash -c 'journalctl -b -u lectord.service | grep -qi "watchdog timeout"'
wait_for 60 bash -c '[[ "$(systemctl show -p ActiveState --value lectord.service)" == active ]]'
# The first TEXT after a start may miss it (under TCG a recognition can pass its
# deadline): watch until it comes, up to 180 s.
t0=$SECONDS
if timeout 180 lector watch --json 2>/dev/null | grep -m1 -q "$EXPECT"; then ok "after the restart lector watch reads '$EXPECT' again ($((SECONDS - t0)) s)"
else notok "after the restart lector watch got no '$EXPECT' in $((SECONDS - t0)) s"; fi

# ---- clean stop ----------------------------------------------------------------------
systemctl stop lectord.service
check "systemctl stop lectord: clean exit (Result=$(show lectord.service Result), status $(show lectord.service ExecMainStatus))" \
  bash -c '[[ "$(systemctl show -p Result --value lectord.service)" == success && "$(systemctl show -p ExecMainStatus --value lectord.service)" == 0 ]]'
check "the socket is still there for the next client" test -S /run/lector/lector.sock

# ---- security score of the installed unit -----------------------------------------------
line="$(systemd-analyze security lectord.service 2>&1 | grep 'Overall exposure level')"
echo "# $line"
score="$(sed -E 's/.*: ([0-9.]+) .*/\1/' <<<"$line")"
check "systemd-analyze security lectord.service: exposure $score <= 1.0" awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 1.0) }'

# ---- a network camera: kept out by PrivateNetwork=yes, let in by the drop-in -------------
# The host's HTTP camera (tests/systemd/run) at 10.0.2.2; its frames say NETWORK CAMERA.
systemctl stop lectord.socket lectord.service
cp /etc/lector/lectord.conf /tmp/lectord.conf.vivid
cat > /etc/lector/lectord.conf <<CONF
[camera]
url = $(cat /lector-test/netcam-url)
deadline_ms = 30000
layout = tesseract
CONF
routed() { awk 'NR > 1 && $2 == "00000000" { found = 1 } END { exit !found }' /proc/net/route; }
wait_for 60 routed || notok "the guest's network: no default route ($(networkctl list --no-pager 2>&1 | tr '\n' ' '))"
systemctl start lectord.service
# A camera opens when watched.
timeout 60 lector watch > /dev/null 2>&1 &
watcher=$!
refused() { lector status --json 2>/dev/null | grep -q '"error":"[^"]'; }
if wait_for 60 refused; then
  said="$(lector status --json | grep -o '"error":"[^"]*"')"
  check "without the drop-in (PrivateNetwork=yes) the network camera is out of reach, and STATUS says what to do: $said" \
    grep -q "network-camera drop-in" <<<"$said"
else notok "without the drop-in: no error in STATUS ($(lector status --json 2>&1 | head -c 300))"; fi
kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null
mkdir -p /etc/systemd/system/lectord.service.d
cp /usr/local/share/doc/lector/network-camera.conf.example /etc/systemd/system/lectord.service.d/network-camera.conf
systemctl daemon-reload
systemctl restart lectord.service
t0=$SECONDS
if timeout 180 lector watch --json 2>/dev/null | grep -m1 -q "NETWORK CAMERA"; then
  ok "with lectord.service.d/network-camera.conf lectord.service reads the network camera ($((SECONDS - t0)) s)"
else notok "with the drop-in: no TEXT from the network camera in $((SECONDS - t0)) s ($(lector status --json 2>&1 | head -c 300))"; fi
line="$(systemd-analyze security lectord.service 2>&1 | grep 'Overall exposure level')"
echo "# with the network-camera drop-in: $line"
score="$(sed -E 's/.*: ([0-9.]+) .*/\1/' <<<"$line")"
check "systemd-analyze security lectord.service with the drop-in: exposure $score <= 1.5 (docs/cameras.md)" \
  awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 1.5) }'
check "the drop-in kept every other hardening setting (ProtectSystem=strict, NoNewPrivileges, IPAddressDeny=any)" \
  bash -c '[[ "$(systemctl show -p ProtectSystem --value lectord.service)" == strict && "$(systemctl show -p NoNewPrivileges --value lectord.service)" == yes ]] && systemctl show -p IPAddressDeny --value lectord.service | grep -Eq "0\.0\.0\.0/0|any"'
systemctl stop lectord.service
rm /etc/systemd/system/lectord.service.d/network-camera.conf
cp /tmp/lectord.conf.vivid /etc/lector/lectord.conf
systemctl daemon-reload

# ---- per-camera template: plugging the camera starts its instance, unplugging stops it --
# vivid has no /dev/v4l/by-id link (no serial): a test-only udev rule gives it one.
systemctl stop lectord.socket lectord.service
kill "$looper" 2>/dev/null; wait "$looper" 2>/dev/null
echo 'SUBSYSTEM=="video4linux", ATTR{name}=="vivid-000-vid-cap", SYMLINK+="v4l/by-id/vivid-000-video-index0"' \
  > /etc/udev/rules.d/99-lector-test-by-id.rules
udevadm control --reload
inst="lectord@$(systemd-escape vivid-000-video-index0).service"
# An instance takes its camera from the command line, so lectord.conf's [camera] settings
# (Tesseract's layout, the long deadline: see tests/systemd/run) do not reach it; a drop-in
# gives them, as a user would. With the defaults, loading the detector's and the neural
# engine's networks under TCG kept the instance from READY=1 past TimeoutStartSec=60s.
mkdir -p /etc/systemd/system/lectord@.service.d
cat > /etc/systemd/system/lectord@.service.d/tcg.conf <<UNIT
[Service]
ExecStart=
ExecStart=$(sed -n 's/^ExecStart=//p' /usr/local/lib/systemd/system/lectord@.service) --layout tesseract --deadline-ms 30000
UNIT
systemctl daemon-reload
systemctl enable "$inst" 2>&1 | sed 's/^/# /'
rmmod vivid || notok "rmmod vivid (unplug) failed"
udevadm settle
check "unplugged: $inst is not running" bash -c "! systemctl is-active -q '$inst'"
modprobe vivid n_devs=1 node_types=0x101 num_inputs=1 input_types=0x2 num_outputs=1 output_types=0x0
udevadm settle
inst_up() { systemctl is-active -q "$inst" && test -S /run/lector/vivid-000-video-index0.sock; }
if wait_for 60 inst_up; then ok "plugged in: $inst started by the device unit, serving /run/lector/vivid-000-video-index0.sock"
else notok "plugged in: $inst not running ($(systemctl is-active "$inst"); $(ls /dev/v4l/by-id 2>&1))"; fi
if timeout 30 lector devices --socket /run/lector/vivid-000-video-index0.sock 2>&1 | grep -q '/dev/v4l/by-id/vivid-000-video-index0'; then
  ok "the instance serves camera /dev/v4l/by-id/vivid-000-video-index0"
else notok "lector devices on the instance socket: $(timeout 30 lector devices --socket /run/lector/vivid-000-video-index0.sock 2>&1 | head -3)"; fi
rmmod vivid || notok "rmmod vivid (second unplug) failed"
inst_down() { ! systemctl is-active -q "$inst"; }
if wait_for 30 inst_down; then ok "unplugged again: BindsTo= stopped $inst"
else notok "after unplug $inst is still $(systemctl is-active "$inst")"; fi

finish
