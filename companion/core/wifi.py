"""The Wi-Fi join code: what a phone's camera reads to join the table's network.

Pure: the host's typed network checked (:func:`network`) and the text of its QR code
(:func:`join_code`). The format is ZXing's "Wi-Fi network config"
(github.com/zxing/zxing/wiki/Barcode-Contents#wi-fi-network-config-android-ios-11), the
one Android's camera and Settings (AOSP's ``WifiUriParser``) and iOS's camera join from::

    WIFI:T:WPA;S:<network name>;P:<password>;H:true;;

``T`` is ``WPA`` (WPA, WPA2 and WPA3 personal alike) or ``nopass`` (an open network, no
``P``); ``H:true`` only for a hidden network. In ``S`` and ``P`` the characters ``\\``,
``;``, ``,``, ``:`` and ``"`` are escaped with a backslash. Nothing else is: the text is
UTF-8 as typed (a Korean network name stays Korean).

A name that looks like hex (``CAFE1234``) is **not** put in double quotes, though the
spec says to: AOSP's parser (with its new escape handling) puts quotes around every
name it reads, so a quoted name would reach Android as ``"CAFE1234"`` with the quotes
in it, and iOS reads a name as text too; only the discontinued ZXing Barcode Scanner
app read an unquoted hex-looking name as hex bytes. A 64-hex-digit password is a raw
WPA key (no passphrase is that long), which is how every reader takes it.
"""

from dataclasses import dataclass

from companion.core.errors import N_, RuleError

#: A network name is 1 to 32 bytes (IEEE 802.11's SSID), in UTF-8 as phones show it.
SSID_BYTES = 32
#: A WPA passphrase: 8 to 63 printable ASCII characters (IEEE 802.11i), or a raw key of
#: 64 hex digits.
PASSWORD_SHORTEST, PASSWORD_LONGEST = 8, 63

WPA, OPEN = "WPA", "nopass"

_ESCAPED = "\\;,:\""


@dataclass(frozen=True)
class Network:
    """A network as the host typed it: its name, its password ("" when open), whether it
    is open and whether it is hidden."""

    ssid: str
    password: str = ""
    security: str = WPA
    hidden: bool = False


def escape(value: str) -> str:
    """``value`` with each of ``\\ ; , : "`` after a backslash, as the format wants."""
    return "".join("\\" + c if c in _ESCAPED else c for c in value)


def join_code(net: Network) -> str:
    """The text of the QR code that joins ``net``: ``WIFI:T:WPA;S:…;P:…;;`` (the
    module's docstring has the format and its sources)."""
    parts = [f"T:{net.security}", f"S:{escape(net.ssid)}"]
    if net.security != OPEN:
        parts.append(f"P:{escape(net.password)}")
    if net.hidden:
        parts.append("H:true")
    return "WIFI:" + ";".join(parts) + ";;"


def _hides_characters(text: str) -> bool:
    """Control characters (a pasted newline or tab, a NUL) belong to no network name or
    password a phone can type."""
    return any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text)


def _is_raw_key(password: str) -> bool:
    return len(password) == 64 and all(c in "0123456789abcdefABCDEF" for c in password)


def network(ssid: str, password: str, *, open_network: bool = False,
            hidden: bool = False) -> Network:
    """The network the host typed, checked: raises :class:`RuleError` with a message
    for a person (which never repeats the password) when a phone could not join it.

    The name loses the spaces around it (a phone keyboard's stray space would make a
    code for another network); the password is kept exactly as typed.
    """
    ssid = ssid.strip()
    if not ssid:
        raise RuleError(N_("Type the Wi-Fi network's name."))
    if _hides_characters(ssid):
        raise RuleError(N_("A network name cannot hold line breaks or control "
                           "characters: type it again."))
    if len(ssid.encode()) > SSID_BYTES:
        raise RuleError(N_("A Wi-Fi network's name is at most %(n)s bytes long (a Korean "
                           "letter takes 3): check it on the router or the phone."),
                        n=SSID_BYTES)
    if open_network:
        if password:
            raise RuleError(N_("An open network has no password: leave the password "
                               "empty, or untick “No password”."))
        return Network(ssid, "", OPEN, hidden)
    if not password:
        raise RuleError(N_("Type the Wi-Fi password, or tick “No password” for an open "
                           "network."))
    if _is_raw_key(password):
        return Network(ssid, password, WPA, hidden)
    if not (password.isascii() and password.isprintable()):
        raise RuleError(N_("A Wi-Fi password holds only English letters, digits, spaces "
                           "and the signs of an English keyboard: check it and type it "
                           "again."))
    if not PASSWORD_SHORTEST <= len(password) <= PASSWORD_LONGEST:
        raise RuleError(N_("A Wi-Fi password has %(least)s to %(most)s characters: check "
                           "it and type it again."),
                        least=PASSWORD_SHORTEST, most=PASSWORD_LONGEST)
    return Network(ssid, password, WPA, hidden)
