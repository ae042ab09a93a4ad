#!/usr/bin/env bash
# Installs the Debian 12 packages Gantry builds and tests with. Idempotent:
# packages already present are left alone, and apt is only touched when
# something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config clang libclang-rt-14-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  libboost-dev libboost-system-dev
  libhwloc-dev hwloc
  libcgroup-dev
  libyaml-cpp-dev libspdlog-dev libfmt-dev catch2
  liblua5.4-dev lua5.4
  libsqlite3-dev sqlite3
  libpqxx-dev postgresql
  libmunge-dev munge
  libcli11-dev nlohmann-json3-dev
  libbpf-dev
  procps psmisc util-linux
  python3 python3-pytest
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages (${missing[*]}); run this script as root" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
