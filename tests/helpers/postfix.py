"""A real Postfix on loopback in front of pbem: relays the pbem domain to the listener, players' mail to a Maildir.

The tests configure the machine's Postfix (Debian's package, installed by
.ci/run) exactly as the README's production section describes, with short
retry times so that deferred mail is retried within a test.
"""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path

POSTFIX = "/usr/sbin/postfix"
CONFIG = Path("/etc/postfix")
NOBODY = 65534
#: Seconds between the flushes a wait makes (see `Postfix.wait_for`).
FLUSH_EVERY = 5.0


def unavailable() -> str | None:
    """Why the Postfix tests cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root to configure and start Postfix"
    if not Path(POSTFIX).exists():
        return "Postfix is not installed (apt-get install postfix; .ci/run does it)"
    if shutil.which("swaks") is None:
        return "swaks is not installed (apt-get install swaks; .ci/run does it)"
    return None


def _master_cf() -> str:
    """Debian's master.cf with every service out of its chroot (a test box has no chroot set up)."""
    lines = []
    for line in Path("/usr/share/postfix/master.cf.dist").read_text().splitlines():
        fields = line.split()
        if line and not line[0].isspace() and not line.startswith("#") and len(fields) >= 8:
            fields[4] = "n"
            line = "  ".join(fields[:7]) + "  " + " ".join(fields[7:])
        lines.append(line)
    return "\n".join(lines) + "\n"


class Postfix:
    """Configure, start, flush and stop the machine's Postfix for one test module."""

    def __init__(self, pbem_domain: str, listener_port: int, player_domain: str = "players.example") -> None:
        self.maildir = Path("/var/tmp") / f"pbem-postfix-{uuid.uuid4().hex[:8]}"
        self.maildir.mkdir(mode=0o755)
        os.chown(self.maildir, NOBODY, NOBODY)
        self.log = Path("/var/log/postfix-pbem-test.log")
        (CONFIG / "master.cf").write_text(_master_cf())
        (CONFIG / "main.cf").write_text(
            "compatibility_level = 3.6\n"
            "myhostname = mx.pbem-test.localhost\n"
            "inet_interfaces = loopback-only\ninet_protocols = ipv4\n"
            "mydestination =\nmynetworks = 127.0.0.0/8\nalias_maps =\nalias_database =\n"
            f"relay_domains = {pbem_domain}\n"
            f"transport_maps = inline:{{ {pbem_domain}=smtp:[127.0.0.1]:{listener_port} }}\n"
            f"virtual_mailbox_domains = {player_domain}\nvirtual_mailbox_base = {self.maildir}\n"
            f"virtual_mailbox_maps = static:inbox/\n"
            f"virtual_uid_maps = static:{NOBODY}\nvirtual_gid_maps = static:{NOBODY}\n"
            "smtp_tls_security_level = none\nsmtpd_tls_security_level = none\n"
            "queue_run_delay = 1s\nminimal_backoff_time = 1s\nmaximal_backoff_time = 2s\n"
            f"maillog_file = {self.log}\nbiff = no\n")
        subprocess.run([POSTFIX, "check"], check=True, capture_output=True)
        running = subprocess.run([POSTFIX, "status"], capture_output=True).returncode == 0
        subprocess.run([POSTFIX, "reload" if running else "start"], check=True, capture_output=True)
        time.sleep(0.5)

    def flush(self) -> None:
        """Retry deferred mail now (what the queue manager does by itself a little later)."""
        subprocess.run(["postqueue", "-f"], check=True, capture_output=True)

    def stop(self) -> None:
        # The queue outlives a stop: mail a test left deferred would otherwise reach the next
        # test's listener (same relay domain) and turn up in its inbox.
        subprocess.run(["postsuper", "-d", "ALL"], capture_output=True)
        subprocess.run([POSTFIX, "stop"], capture_output=True)
        shutil.rmtree(self.maildir, ignore_errors=True)

    def mails(self) -> list[EmailMessage]:
        """Everything delivered to the players' Maildir, oldest first."""
        found = []
        for folder in ("new", "cur"):
            for path in sorted((self.maildir / "inbox" / folder).glob("*"), key=lambda p: p.stat().st_mtime):
                message = email.message_from_bytes(path.read_bytes(), policy=default_policy)
                assert isinstance(message, EmailMessage)
                found.append(message)
        return found

    def wait_for(self, where: Callable[[EmailMessage], bool], count: int = 1,
                 timeout: float = 90) -> list[EmailMessage]:
        # A retry that finds the queue file still locked by the delivery agent that deferred it
        # ("skipped, still being delivered", likelier on a slow machine with our one-second
        # backoff) is put back for a fixed 60 s by Postfix's queue manager, which on a slow CI
        # machine overran even a 90 s wait. So every few seconds the wait flushes the queue, as an
        # operator would: `postqueue -f` has the queue manager ignore the cool-down time stamps.
        start = time.monotonic()
        flushed = start
        while True:
            matching = [m for m in self.mails() if where(m)]
            if len(matching) >= count:
                return matching
            now = time.monotonic()
            if now > start + timeout:
                tail = self.log.read_text(errors="replace").splitlines()[-15:] if self.log.exists() else []
                raise AssertionError(f"{len(matching)} of {count} mails arrived; Postfix log:\n" + "\n".join(tail))
            if now > flushed + FLUSH_EVERY:
                self.flush()
                flushed = now
            time.sleep(0.2)


def swaks(sender: str, to: str, body: str, headers: dict[str, str] | None = None,
          subject: str = "pbem") -> subprocess.CompletedProcess[str]:
    """Send one mail to Postfix on 127.0.0.1:25 with swaks, as a player's MTA would."""
    argv = ["swaks", "--silent", "1", "--server", "127.0.0.1:25", "--from", sender, "--to", to,
            "--header", f"Subject: {subject}", "--body", body]
    for name, value in (headers or {}).items():
        argv += ["--add-header", f"{name}: {value}"]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)
