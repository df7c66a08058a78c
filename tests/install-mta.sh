#!/bin/sh
# Postfix and swaks from Debian's packages, for tests/test_postfix.py (skipped where this cannot run).
# Non-interactive: Postfix is installed with "No configuration"; the tests write their own.
if [ -x /usr/sbin/postfix ] && command -v swaks >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-mta: not root or no apt-get: the Postfix tests will be skipped" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
apt-get install -y -q postfix swaks >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q postfix swaks >/dev/null; } \
    || echo "install-mta: apt-get failed: the Postfix tests will be skipped" >&2
exit 0
