#!/usr/bin/env bash
# Headless Chromium for the page tests comes from Debian (browser downloads fail here).
set -u
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" != 0 ]; then echo "not root: cannot apt-get install chromium" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null 2>&1
