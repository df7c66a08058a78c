"""Command lines of a mail body: above the quoted mail, or else below and between its quotes."""

from __future__ import annotations

import re
from collections.abc import Callable

from pbem.mail.inbound.sanitise import SURROGATE

__all__ = ["extract_commands"]

_INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060\u200e\u200f"
# Command lines may come from any text (extract_commands is public): no controls, no lone surrogates.
_LINE_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f\ud800-\udfff]")

_DEVICE = (
    r"(?:iphone|ipad|ipod(?:\s+touch)?|blackberry|android|mobile(?:\s+(?:device|phone))?|device"
    r"|(?:smart|cell|mobile\s+)?phone|cellphone|smartphone|tablet|handy|windows\s+phone|galaxy|samsung"
    r"|huawei|xiaomi|nokia|motorola|htc|sony|oneplus|móvil|movil|celular|telefoon|telefono|téléphone|mobile)"
)
_DEVICE_PHRASE = rf"(?:[\w'’&+.-]+\s+){{0,4}}?{_DEVICE}(?:\s+[\w'’&+.-]+){{0,4}}"
# Whole-line mobile and app footers only: "Sent from my desk, is much easier then my mobile
# phone." is prose, and "Sent from a magnificent torch of pixels" is a custom footer we cannot know.
_FOOTER = re.compile(
    r"^(?:"
    rf"sent\s+(?:from|with|via|using|on)\s+my\s+{_DEVICE_PHRASE}"
    r"|sent\s+from\s+(?:samsung\s+mobile|outlook(?:\s+for\s+\w+)?|mail\s+for\s+windows(?:\s+1[01])?"
    r"|yahoo\s+mail\s+(?:for|on)\s+\w+|proton\s*mail\s+mobile|aol\s+mobile\s+mail|gmail\s+mobile)"
    r"|get\s+outlook\s+for\s+(?:ios|android)"
    rf"|(?:von|gesendet\s+von)\s+meinem\s+{_DEVICE_PHRASE}(?:\s+gesendet)?"
    rf"|envoy[ée]\s+(?:de|depuis)\s+mon\s+{_DEVICE_PHRASE}"
    rf"|enviado\s+(?:desde\s+mi|do\s+meu|de\s+meu)\s+{_DEVICE_PHRASE}"
    rf"|verzonden\s+(?:vanaf|met|van)\s+mijn\s+{_DEVICE_PHRASE}"
    rf"|inviato\s+da(?:l\s+mio)?\s+{_DEVICE_PHRASE}"
    r")\s*[.!]?(?:\s*<[^<>\s]*>)?$",  # Outlook's HTML-to-text keeps the link: "...for iOS<https://aka.ms/...>"
    re.IGNORECASE,
)
_ORIGINAL_MESSAGE = re.compile(
    r"^[-=_*\s]*(?:original\s+message|ursprüngliche\s+nachricht|originalnachricht|message\s+d'origine"
    r"|mensaje\s+original|oorspronkelijk\s+bericht|messaggio\s+originale|mensagem\s+original"
    r"|originalmeddelande|oprindelig\s+meddelelse|opprinnelig\s+melding|alkuperäinen\s+viesti"
    r"|wiadomość\s+oryginalna|původní\s+zpráva|forwarded\s+message|weitergeleitete\s+nachricht"
    r"|message\s+transféré|mensaje\s+reenviado|doorgestuurd\s+bericht|begin\s+forwarded\s+message:?)"
    r"[-=_*\s]*$",
    re.IGNORECASE,
)
# Attribution lines end with the verb (English "wrote:", Spanish "escribió:", ...), or put the
# verb before the name (German "Am ... schrieb Max <m@x.de>:", Dutch "schreef", Nordic "skrev"),
# or have no verb at all (Gmail in Japanese or Russian: "... Taro <t@x.jp>:").
_ATTRIBUTION_END = re.compile(
    r"(?:\b(?:wrote|writes|escribió|escribio|escreveu|écrit|ecrit|écrivait|scritto|kirjoitti|pisze"
    r"|napisał|napisała|napisal|napsal|napsala|написал|написала|yazdı|rašė|skrifaði)(?:\s*\(\w{1,2}\))?"
    r"|(?:写道|寫道|のメッセージ|작성)"
    r"|<[^<>\s]+@[^<>\s]+>\)?"
    r"|\b(?:schrieb|schreef|skrev)\b[^:：]{0,200}"
    r"|\bezt\s+írta\b.{0,120}"
    r")\s*[:：]\s*$",
    re.IGNORECASE,
)
_ATTRIBUTION_OPENER = re.compile(r"^(?:on|am|le|el|op|il|em|den|dne|w\s+dniu|at|quoting|zitat\s+von)\s", re.I)
_SEPARATOR = re.compile(r"^(?:_{5,}|-{5,})$")
_FROM_FIELD = re.compile(
    r"^\**\s*(?:from|von|de|van|da|från|fra|od|lähettäjä|от|feladó|kimden)\s*\**\s*:", re.IGNORECASE
)
_HEADER_FIELD = re.compile(
    r"^\**\s*(?:sent|date|to|subject|cc|bcc|reply-to|gesendet|datum|an|betreff|envoyé|à|objet|enviado"
    r"|fecha|para|asunto|verzonden|aan|onderwerp|inviato|data|a|oggetto|skickat|till|ämne|sendt|til"
    r"|emne|wysłano|do|temat|odesláno|komu|předmět|lähetetty|vastaanottaja|aihe|отправлено|кому|тема"
    r"|dátum|címzett|tárgy|gönderildi|kime|konu)\s*\**\s*:",
    re.IGNORECASE,
)
# Attribution lines are short; looking only at a line's tail keeps every test O(1) per line.
_TAIL = 300
_LOOKAHEAD = 4


def extract_commands(text: str, is_command: Callable[[str], bool] | None = None) -> list[str]:
    """The command lines of a mail body, stripped, in order.

    Reading stops at the first quoted line ('>'), attribution line ("On ... wrote:" in several
    languages, also wrapped over up to three lines), Outlook header block or "Original Message"
    line, signature separator ('--'), whole-line mobile footer, or a line 'end'. Blank lines
    and '//' comments are skipped. Linear in the length of the text.

    With ``is_command``, a reply written below or between the quotes is read too: when no line
    above the quote passes ``is_command`` but an unquoted line below it does, the lines below
    and between the quoted blocks follow those above. Quoted lines are never read.
    """
    lines = text.splitlines()
    commands: list[str] = []
    index = 0
    for index, line in enumerate(lines):
        stripped = _clean_line(line)
        if not stripped:
            continue
        if stripped.startswith(">"):
            break
        if stripped.startswith("//"):
            continue
        if _ends_commands(stripped, lines, index):
            if not _attribution_length(stripped, lines, index):
                return commands  # a signature, footer, 'end' or unquoted header block: nothing follows
            break
        commands.append(stripped)
    else:
        return commands
    if is_command is None or any(is_command(line) for line in commands):
        return commands
    below = _below_quotes(lines, index)
    return [*commands, *below] if any(is_command(line) for line in below) else commands


def _below_quotes(lines: list[str], start: int) -> list[str]:
    """The unquoted lines from ``start`` on (bottom and inline posting), without attribution lines;
    up to a signature, footer, 'end' or a quoted mail that is not marked with '>'."""
    found: list[str] = []
    index = start
    while index < len(lines):
        stripped = _clean_line(lines[index])
        skip = _attribution_length(stripped, lines, index) if stripped else 1
        if skip:
            index += skip
            continue
        index += 1
        if stripped.startswith((">", "//")):
            continue
        if _ends_commands(stripped, lines, index - 1):
            break
        found.append(stripped)
    return found


def _clean_line(line: str) -> str:
    if _LINE_CONTROL.search(line):
        line = _LINE_CONTROL.sub("", SURROGATE.sub("\ufffd", line))
    return line.strip().lstrip(_INVISIBLE).strip()


def _ends_commands(line: str, lines: list[str], index: int) -> bool:
    if line == "--" or line.lower() == "end":
        return True
    head = line[:_TAIL]
    if len(line) <= 160 and _FOOTER.match(line):
        return True
    if len(line) <= 200 and _ORIGINAL_MESSAGE.match(line):
        return True
    if _attribution_length(line, lines, index):
        return True
    if _SEPARATOR.match(head) and _next_line_matches(lines, index, _FROM_FIELD):
        return True
    return bool(_FROM_FIELD.match(head) and _next_line_matches(lines, index, _HEADER_FIELD))


def _attribution_length(line: str, lines: list[str], index: int) -> int:
    """How many lines the attribution ("On ... wrote:") starting at ``lines[index]`` spans; 0 if none."""
    if _ATTRIBUTION_END.search(line[-_TAIL:]):
        return 1
    if len(line) <= _TAIL and _ATTRIBUTION_OPENER.match(line):
        return _wrapped_attribution(line, lines, index)
    return 0


def _wrapped_attribution(line: str, lines: list[str], index: int) -> int:
    """'On Tue, ... Someone' + '<a@b.com>' + 'wrote:' on up to three lines, as clients wrap it: how many."""
    joined = line
    for offset, following in enumerate(lines[index + 1:index + 3], start=2):
        part = _clean_line(following)
        if not part or part.startswith(">"):
            return 0
        joined = joined + " " + part[:_TAIL]
        if _ATTRIBUTION_END.search(joined[-_TAIL:]):
            return offset
    return 0


def _next_line_matches(lines: list[str], index: int, pattern: re.Pattern[str]) -> bool:
    for following in lines[index + 1:index + 1 + _LOOKAHEAD]:
        part = _clean_line(following)
        if part:
            return bool(pattern.match(part[:_TAIL]))
    return False
