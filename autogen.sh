#!/bin/sh
# Regenerate the build system.  With --deps, first install the Debian
# packages the build needs (when missing), so a fresh machine is two commands
# from a working tree: ./autogen.sh --deps && ./configure && make.
set -e
cd "$(dirname "$0")"

if [ "$1" = "--deps" ]; then
	pkgs="autoconf automake libtool pkg-config make gcc libcjson-dev libprotobuf-c-dev protobuf-c-compiler zlib1g-dev uthash-dev libbsd-dev gnuplot-nox python3-venv python3-pytest python3-setuptools python3-wheel"
	missing=
	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "autogen.sh: installing:$missing"
		sudo=
		[ "$(id -u)" -eq 0 ] || sudo=sudo
		$sudo apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
	fi
fi
autoreconf -fi
