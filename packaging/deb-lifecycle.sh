#!/usr/bin/env bash
# deb-lifecycle.sh DIR: run by ci-check.sh inside a throw-away root (never on
# a real system). Installs eventbox 1.0.0+ci from DIR, upgrades it to
# 1.0.1+ci, removes and purges it, and checks what each step leaves.
set -euo pipefail
dir=$1
fail() { echo "deb-lifecycle: FAIL: $*" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive

# A Raspberry Pi OS has a gpio group; the service user must join it.
getent group gpio >/dev/null || groupadd --system gpio

dpkg -i "$dir/eventbox_1.0.0+ci_amd64.deb" >/dev/null
[ "$(dpkg-query -W -f '${Version}' eventbox)" = "1.0.0+ci" ] || fail "1.0.0+ci not installed"
getent passwd eventbox >/dev/null || fail "no eventbox user"
id -nG eventbox | tr ' ' '\n' | grep -qx gpio || fail "eventbox is not in the gpio group"
# CUPS's SystemGroup, for adding printers from the console.
id -nG eventbox | tr ' ' '\n' | grep -qx lpadmin || fail "eventbox is not in the lpadmin group"
[ "$(stat -c '%U:%G %a' /var/lib/eventbox)" = "eventbox:eventbox 750" ] ||
	fail "/var/lib/eventbox is $(stat -c '%U:%G %a' /var/lib/eventbox), want eventbox:eventbox 750"
[ "$(stat -c '%a' /etc/default/eventbox)" = 600 ] || fail "/etc/default/eventbox is not mode 600"
[ "$(stat -c '%U:%G %a' /etc/eventbox/release-keys)" = "root:root 644" ] ||
	fail "/etc/eventbox/release-keys is $(stat -c '%U:%G %a' /etc/eventbox/release-keys), want root:root 644"
[ -L /etc/systemd/system/multi-user.target.wants/eventbox.service ] || fail "the service is not enabled"
[ "$(/usr/bin/eventbox version)" = "eventbox 1.0.0-ci" ] || fail "the installed binary does not run"

# Data and the admin's settings survive an upgrade.
echo photo >/var/lib/eventbox/marker
chown eventbox:eventbox /var/lib/eventbox/marker
echo "MDNS_NAME=party" >>/etc/default/eventbox
dpkg -i "$dir/eventbox_1.0.1+ci_amd64.deb" >/dev/null
[ "$(dpkg-query -W -f '${Version}' eventbox)" = "1.0.1+ci" ] || fail "the upgrade to 1.0.1+ci did not happen"
[ "$(cat /var/lib/eventbox/marker)" = photo ] || fail "the upgrade lost /var/lib/eventbox"
[ "$(stat -c '%U' /var/lib/eventbox/marker)" = eventbox ] || fail "the upgrade changed the data's owner"
grep -qx "MDNS_NAME=party" /etc/default/eventbox || fail "the upgrade overwrote /etc/default/eventbox"

# remove keeps the data and the settings.
dpkg -r eventbox >/dev/null
[ ! -e /usr/bin/eventbox ] || fail "remove left /usr/bin/eventbox"
[ -e /var/lib/eventbox/marker ] || fail "remove deleted the data"
[ -e /etc/default/eventbox ] || fail "remove deleted the conffile"

# purge deletes them.
mkdir -p /etc/NetworkManager/dnsmasq-shared.d
echo "address=/#/10.42.0.1" >/etc/NetworkManager/dnsmasq-shared.d/eventbox.conf
dpkg -P eventbox >/dev/null
[ ! -e /var/lib/eventbox ] || fail "purge left /var/lib/eventbox"
[ ! -e /etc/default/eventbox ] || fail "purge left /etc/default/eventbox"
[ ! -e /etc/eventbox/release-keys ] || fail "purge left /etc/eventbox/release-keys"
[ ! -e /etc/NetworkManager/dnsmasq-shared.d/eventbox.conf ] || fail "purge left the DNS drop-in"
[ ! -e /etc/systemd/system/multi-user.target.wants/eventbox.service ] || fail "purge left the enablement link"
echo "deb-lifecycle: install, upgrade, remove and purge behave"
