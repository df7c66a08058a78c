#!/bin/sh
# Test-only tools from Debian's packages, for the tests that use real parts (each skipped with a reason
# where its tool is missing): Postfix and swaks (tests/e2e/test_postfix.py), Chromium and its driver
# (tests/e2e/test_browser.py), valgrind (bench/move_instructions.py's test). Non-interactive: Postfix is installed with "No configuration"; the tests
# write their own.
have_all() {
    [ -x /usr/sbin/postfix ] && command -v swaks >/dev/null 2>&1 \
        && command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 \
        && command -v valgrind >/dev/null 2>&1
}
if have_all; then
    exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-tools: not root or no apt-get: the Postfix, browser and callgrind tests will be skipped" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
packages="postfix swaks chromium chromium-driver valgrind"
apt-get install -y -q $packages >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q $packages >/dev/null; } \
    || echo "install-tools: apt-get failed: the Postfix, browser and callgrind tests will be skipped" >&2
exit 0
