#!/usr/bin/env bash
# Debian packages the site and its tests use: headless Chromium for the page tests (browser downloads fail
# on these machines) and a CJK font so the figures' Chinese labels render. Needs root; a no-op when present.
set -u
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
fc-list :lang=zh 2>/dev/null | grep -q . || need+=(fonts-noto-cjk)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then echo "not root: cannot apt-get install ${need[*]}" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
echo "installing ${need[*]} (apt-get)"
for attempt in 1 2 3; do   # a mirror can fail once; try again before giving up
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null && break
  sleep $((attempt * 10))
done
command -v chromium >/dev/null 2>&1 && fc-list :lang=zh | grep -q .
