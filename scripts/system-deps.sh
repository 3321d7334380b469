#!/usr/bin/env bash
# System packages the tests need: Chromium (browser tests), the only fonts the test browser sees
# (tests/browser/fonts.conf: DejaVu for Latin, Noto Sans CJK for Chinese), docker-compose (validates
# compose.yaml offline). Installs them with apt when missing and run as root.
set -euo pipefail
needed=(chromium fonts-dejavu-core fonts-noto-cjk docker-compose)
missing=()
for pkg in "${needed[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "memoryapp: the tests need these system packages: ${missing[*]}; run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing system packages: ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
