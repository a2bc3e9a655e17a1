#!/bin/sh
# The guest side of tests/packages/run, part c: runs INSIDE the arm64 guest (qemu TCG
# aarch64, tests/pi/vm.sh's busybox initramfs). /lector/root.tar holds a Debian 13 arm64
# root after debootstrap's first stage (minbase plus the Debian packages Lector's arm64
# packages depend on, fetched from the archive on the host) and Lector's packages in
# /lector-debs. Here: debootstrap's second stage installs Debian's packages, dpkg -i
# installs lectord, lector and lector-models (dpkg refuses a Depends left unmet), then
# the installed /usr/bin/lectord reads the demo. Prints "RESULT name key=value" lines and
# outputs between "BEGIN-FILE name" / "END-FILE"; the host judges.
set -u
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{print int(b-a)}'; }
show() { echo "BEGIN-FILE $1"; cat "$2" 2>/dev/null; echo "END-FILE"; }
T=/target
echo "# $(uname -m), $(grep -c ^processor /proc/cpuinfo) CPUs, kernel $(uname -r)"
mkdir -p $T
t0=$(now)
busybox tar -xf /lector/root.tar -C $T
echo "RESULT unpack exit=$? seconds=$(since "$t0")"
rm -f /lector/root.tar
for m in dev dev/pts; do busybox mount -o bind /$m $T/$m; done
t0=$(now)
busybox chroot $T /debootstrap/debootstrap --second-stage > /tmp/second-stage.log 2>&1
echo "RESULT second-stage exit=$? seconds=$(since "$t0")"
tail -20 $T/debootstrap/debootstrap.log > /tmp/second-stage.tail 2>/dev/null || tail -20 /tmp/second-stage.log > /tmp/second-stage.tail
show second-stage.tail /tmp/second-stage.tail
busybox mountpoint -q $T/proc || busybox mount -t proc proc $T/proc
# /sys as on a real system: ONNX Runtime reads the processors from it (without it
# lectord aborted: "Error in cpuinfo ... Attempt to use DefaultLogger").
busybox mkdir -p $T/sys; busybox mountpoint -q $T/sys || busybox mount -t sysfs sysfs $T/sys
in_root() { busybox chroot $T /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 OMP_THREAD_LIMIT=1 "$@"; }
t0=$(now)
in_root sh -c 'dpkg -i /lector-debs/lectord_*_arm64.deb /lector-debs/lector_*_arm64.deb /lector-debs/lector-models_*_all.deb' > /tmp/dpkg.log 2>&1
echo "RESULT dpkg exit=$? seconds=$(since "$t0")"
tail -15 /tmp/dpkg.log > /tmp/dpkg.tail; show dpkg.tail /tmp/dpkg.tail
in_root dpkg-query -W -f='${Package} ${Version} ${Architecture} ${Status}\n' lectord lector lector-models > /tmp/status.txt 2>&1
show status /tmp/status.txt
in_root sh -c 'getent passwd lector; id -nG lector' > /tmp/user.txt 2>&1; show user /tmp/user.txt
t0=$(now)
in_root lectord --demo --stdout --max-frames 4 --deadline-ms 300000 > /tmp/demo.out 2> /tmp/demo.err
echo "RESULT demo exit=$? seconds=$(since "$t0")"
show demo.out /tmp/demo.out
show demo.err /tmp/demo.err
exit 0
