#!/usr/bin/env bash
# Debian's Chromium for the browser tests (npm run test:browser), installed with apt when
# /usr/bin/chromium is absent (as root, or through sudo). Nothing else is downloaded: the tests drive it
# with puppeteer-core, which brings no browser of its own.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  /usr/bin/chromium --version
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q chromium
/usr/bin/chromium --version
