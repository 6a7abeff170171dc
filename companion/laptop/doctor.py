"""Why phones may not reach the laptop, and what to do: the host's table page
("Phones can't open it?", templates/table/_reach.html) and ``companion doctor``.

Two halves. :func:`advice` and :func:`report` are pure: they turn :class:`Facts` (the
OS, the port, the addresses, what the firewall and Windows say) into steps, so the tests
feed them any laptop. The rest reads those facts from this machine, each read cheap and
bounded: a file, or one command with a short time-out, never a packet sent off it. The
steps' texts are marked ``N_`` and translated where they are shown: on the page in the
device's language, in the terminal in the laptop's (companion/laptop/words.py), as the
rest of the command line.

The page never waits for a command: it shows what was last read, and Windows' networks
are read in the background (:class:`Background`), at most once a minute per process.
Whatever a command does (missing, failing, hanging, printing bytes in any code page),
its answer reads as unknown, never as an error.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Generic, TypeVar

from companion.core.errors import N_
from companion.laptop import addresses
from companion.laptop.addresses import Interface, Kind
from companion.laptop.words import gettext as _

#: Seconds a firewall or network command may take before it is given up on.
COMMAND_SECONDS = 3.0
#: macOS's application firewall's command (present on every Mac).
SOCKETFILTERFW = "/usr/libexec/ApplicationFirewall/socketfilterfw"
UFW_CONF = Path("/etc/ufw/ufw.conf")
#: One PowerShell line: each connected network's adapter, name and category, written
#: in UTF-8. Piped, PowerShell writes its stdout in [Console]::OutputEncoding, the
#: console's OEM code page (cp437, cp850, cp949…) unless set; ``$OutputEncoding`` is
#: only what it sends to the native commands it runs, not its own output.
WINDOWS_PROFILES = ("[Console]::OutputEncoding = [System.Text.Encoding]::UTF8; "
                    "Get-NetConnectionProfile | Select-Object InterfaceAlias,Name,"
                    "NetworkCategory | ConvertTo-Json -Compress")
#: Windows PowerShell, under ``%SystemRoot%``: Windows looks a bare ``powershell`` up
#: beside Python and in the current folder (a downloaded checkout, say) before System32.
POWERSHELL = ("System32", "WindowsPowerShell", "v1.0", "powershell.exe")
#: Seconds a background reading stays fresh: PowerShell takes a second to start.
REFRESH_SECONDS = 60.0


@dataclass(frozen=True)
class Network:
    """A network Windows is connected to: the adapter ("Wi-Fi"), the network's name
    (the Wi-Fi's), and its category ("Public", "Private" or "DomainAuthenticated")."""

    adapter: str
    name: str
    category: str


@dataclass(frozen=True)
class Rule:
    """One of Windows' inbound firewall rules for a program: "Allow" or "Block", and the
    profiles it holds on ("Any", or some of "Domain", "Private", "Public")."""

    action: str
    profiles: tuple[str, ...]


#: Which rule profile covers each of Windows' network categories.
PROFILE_OF = {"Public": "Public", "Private": "Private", "DomainAuthenticated": "Domain"}


def admitted(rules: tuple[Rule, ...], category: str) -> bool:
    """Whether Windows' firewall lets phones on a network of ``category`` reach the
    program: a rule allows it there, and no rule blocks it there (a block wins)."""
    def holds(rule: Rule) -> bool:
        return "Any" in rule.profiles or PROFILE_OF.get(category, category) in rule.profiles
    if any(rule.action == "Block" and holds(rule) for rule in rules):
        return False
    return any(rule.action == "Allow" and holds(rule) for rule in rules)


def unadmitted_networks(facts: Facts) -> list[Network]:
    """The connected networks Windows' firewall keeps phones out of, for want of a rule
    (none when the rules were not read)."""
    if facts.rules is None:
        return []
    return [n for n in facts.networks if not admitted(facts.rules, n.category)]


@dataclass(frozen=True)
class Facts:
    """What is known of this laptop: everything but ``system`` and ``port`` may be
    unknown (empty, or None)."""

    system: str  # platform.system(): "Windows", "Darwin", "Linux"
    port: int
    interfaces: tuple[Interface, ...] = ()
    networks: tuple[Network, ...] = ()  # Windows only
    firewall: tuple[str, ...] = ()  # lines saying what the firewall is, where readable
    listening: bool | None = None  # whether something answers on the port
    chosen: str | None = None  # the address serve prints (default: the best found)
    # Windows' inbound firewall rules for the program that serves; None: not read
    rules: tuple[Rule, ...] | None = None
    program: str = "Python"  # what Windows' firewall names it: "Companion" for the program


@dataclass(frozen=True)
class Step:
    """One thing to check or do: ``key`` names it (the page links the hotspot how-to
    from ``"isolation"``), ``message`` is marked for translation with its ``params``."""

    key: str
    message: str
    params: dict[str, Any] = field(default_factory=dict)

    def english(self) -> str:
        return self.message % self.params if self.params else self.message


def _tunnels(facts: Facts, wanted: Kind) -> list[str]:
    """The names of the up interfaces of one kind, each once, in the ranked order."""
    names: list[str] = []
    for i in addresses.rank(list(facts.interfaces)):
        if i.up and addresses.kind(i) == wanted and i.name not in names:
            names.append(i.name)
    return names


def public_networks(facts: Facts) -> list[str]:
    """The names of the networks Windows treats as Public (its firewall's strictest)."""
    return [n.name or n.adapter for n in facts.networks if n.category == "Public"]


def _os_steps(facts: Facts) -> list[Step]:
    """What to allow in this laptop's own firewall, for its OS."""
    port = {"port": facts.port}
    if facts.system == "Windows":
        steps = [Step("windows-public", N_(
            "Windows treats the network “%(name)s” as Public, where its firewall lets no "
            "phone in: make it Private (Settings → Network & internet → Wi-Fi or "
            "Ethernet → %(name)s → Network profile type: Private network)."), {"name": n})
            for n in public_networks(facts)]
        steps += [Step("windows-no-rule", N_(
            "Windows' firewall has no rule that lets phones reach %(program)s on “%(name)s”: "
            "Windows Security → Firewall & network protection → Allow an app through "
            "firewall → Change settings → tick Private (and Public, on a Public network) "
            "for %(program)s."), {"name": n.name or n.adapter, "program": facts.program})
            for n in unadmitted_networks(facts)]
        if not steps:
            steps.append(Step("windows-private", N_(
                "Make this network Private on the laptop: Settings → Network & internet → "
                "Wi-Fi or Ethernet → the network → Network profile type: Private "
                "network.")))
        return [*steps, Step("windows-firewall", N_(
            "Allow Python through the firewall: Windows Security → Firewall & network "
            "protection → Allow an app through firewall → Change settings → tick "
            "Private for Python (Windows asked the first time Companion started)."))]
    if facts.system == "Darwin":
        return [Step("mac-firewall", N_(
            "Allow incoming connections on the laptop: System Settings → Network → "
            "Firewall → Options → Python → Allow incoming connections (or turn the "
            "firewall off for the night).")),
            # macOS 15 on: an app, and whatever runs in its terminal, reaches the
            # local network only once allowed; only Apple's Terminal and ssh are exempt.
            Step("mac-local-network", N_(
                "Started Companion from VS Code, iTerm, Warp or another app than Terminal? "
                "macOS 15 and newer keep that app off the local network until it is "
                "allowed: System Settings → Privacy & Security → Local Network → turn it "
                "on."))]
    if facts.system == "Linux":
        return [Step("linux-firewall", N_(
            "Open port %(port)s in the laptop's firewall: sudo ufw allow %(port)s/tcp "
            "(ufw), or sudo firewall-cmd --add-port=%(port)s/tcp (firewalld)."), port)]
    return [Step("firewall", N_(
        "Allow incoming connections to port %(port)s in the laptop's firewall."), port)]


def advice(facts: Facts) -> list[Step]:
    """What to check when no phone reaches the laptop, the likeliest first: the laptop's
    firewall for its OS, then the network (guest Wi-Fi that keeps devices apart, phones
    on mobile data, a VPN on the laptop, a wired laptop on another network), then the
    laptop's sleep (a closed lid, mid-night)."""
    vpns = _tunnels(facts, Kind.VPN)
    vpn = (Step("vpn", N_("Turn off the VPN on the laptop (%(names)s): it can keep phones "
                          "out."), {"names": ", ".join(vpns)}) if vpns else
           Step("vpn", N_("A VPN on the laptop can keep phones out: turn it off for the "
                          "night.")))
    return [
        *_os_steps(facts),
        Step("mobile-data", N_(
            "Each phone must be on the same Wi-Fi as the laptop, not on mobile data: check "
            "the Wi-Fi's name on a phone that cannot open its code.")),
        Step("isolation", N_(
            "Guest and café Wi-Fi often keep devices apart, so no phone can reach the "
            "laptop there: turn on a hotspot on a phone or on the laptop, and join the "
            "laptop and every phone to it.")),
        vpn,
        Step("wired", N_(
            "A laptop on a network cable may be on another network than the phones' "
            "Wi-Fi: join the laptop to the same Wi-Fi.")),
        Step("lid", N_(
            "Phones that worked and then all lost the table: the laptop slept. Companion "
            "keeps it awake while a night is live, but closing its lid still puts most "
            "laptops to sleep: leave the lid open, and plug it in for a long night.")),
    ]


#: How the terminal names each kind of address.
KIND_NAMES = {
    Kind.HOTSPOT: N_("this laptop's hotspot"), Kind.WIFI: N_("Wi-Fi"),
    Kind.LAN: N_("network adapter"), Kind.OTHER: N_("network adapter"),
    Kind.VIRTUAL: N_("virtual machines' or containers' network: phones are not on it"),
    Kind.VPN: N_("VPN or tunnel: phones reach it only on the same VPN"),
    Kind.LINK_LOCAL: N_("no address from the network (link-local)"),
    Kind.LOOPBACK: N_("this machine only"),
}


def _listening_line(facts: Facts) -> str:
    if facts.listening is None:
        return _("Port %(port)s: not checked.", port=facts.port)
    if facts.listening:
        return _("Port %(port)s: something answers on it (companion serve, if it is yours).",
                 port=facts.port)
    return _("Port %(port)s: nothing answers on it. Start the server: companion serve "
             "--port %(port)s", port=facts.port)


def address_line(interface: Interface, port: int, chosen: str = "") -> str:
    """One address for the terminal: its URL, its interface and what that is."""
    mark = _("  <- printed by companion serve") if interface.address == chosen else ""
    state = _(", down") if not interface.up else ""
    return (f"  http://{interface.address}:{port}  {interface.name}: "
            f"{_(KIND_NAMES[addresses.kind(interface)])}{state}{mark}")


def report(facts: Facts) -> str:
    """The diagnosis for the terminal, in its language (``companion doctor``:
    companion/laptop/words.py)."""
    ranked = addresses.rank(list(facts.interfaces))
    chosen = facts.chosen or addresses.best(list(facts.interfaces))
    lines = [_("Addresses of this computer, best first (companion serve prints %(address)s):",
               address=chosen)]
    lines += [address_line(i, facts.port, chosen) for i in ranked]
    if not ranked:
        lines.append(_("  none: this computer is on no network."))
    lines.append(_listening_line(facts))
    lines += [_("Firewall: %(state)s", state=line) for line in facts.firewall] or [
        _("Firewall: its state could not be read here.")]
    lines += [_("Windows: the network “%(name)s” (%(adapter)s) is %(category)s.",
                name=n.name or n.adapter, adapter=n.adapter, category=n.category)
              for n in facts.networks]
    if facts.system == "Windows" and not facts.networks:
        lines.append(_("Windows: its networks' profiles (Public or Private) could not be "
                       "read here."))
    found = _tunnels(facts, Kind.VPN) + _tunnels(facts, Kind.VIRTUAL)
    if found:
        lines.append(_("VPNs and bridges found: %(names)s", names=", ".join(found)))
    lines.append(_("If phones cannot open it:"))
    lines += [f"  - {_(step.message, **step.params)}" for step in advice(facts)]
    lines.append(_("  - Or try the other addresses above (companion serve shows their QR "
                   "codes on the table page, under “Phones can't open it?”)."))
    return "\n".join(lines)


# --- reading this machine ----------------------------------------------------------

def decode_output(data: bytes) -> str:
    """A command's output as text, read as UTF-8 whatever the locale (the commands are
    asked for UTF-8): a byte that is not UTF-8 becomes U+FFFD rather than an error, and
    a byte-order mark (.NET's UTF-8 may write one) is dropped, for JSON refuses it."""
    return data.decode("utf-8-sig", errors="replace")


def _run(command: list[str], seconds: float | None = None) -> str | None:
    """A command's output, or None when it is missing, fails or takes longer than
    ``seconds`` (``COMMAND_SECONDS``, read at the call, not at import). Read as
    bytes and decoded here (:func:`decode_output`): ``text=True`` decodes in the
    locale's code page, and its UnicodeDecodeError is neither an OSError nor a
    SubprocessError."""
    if shutil.which(command[0]) is None and not Path(command[0]).is_file():
        return None
    try:
        # Windows: a hidden console of its own, so that the command neither shows a
        # window nor changes the host's (PowerShell sets its console to UTF-8).
        done = subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL,
                              timeout=COMMAND_SECONDS if seconds is None else seconds,
                              check=False,
                              creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0))
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if done.returncode != 0 or not isinstance(done.stdout, bytes):
        return None
    return decode_output(done.stdout).strip()


def parse_profiles(output: str | None) -> tuple[Network, ...]:
    """Windows' networks from ``Get-NetConnectionProfile``'s JSON (an object for one
    network, a list for several; the category as a word or as its number); none, for
    unknown, from anything else."""
    try:
        found = json.loads(output or "null")
    except (ValueError, RecursionError):
        return ()
    rows = found if isinstance(found, list) else [found] if isinstance(found, dict) else []
    return tuple(Network(str(r.get("InterfaceAlias") or ""), str(r.get("Name") or ""),
                         _category(r.get("NetworkCategory")))
                 for r in rows if isinstance(r, dict))


def _category(value: Any) -> str:
    """A network category as its word (older PowerShell gives its number)."""
    numbers = {0: "Public", 1: "Private", 2: "DomainAuthenticated"}
    return numbers.get(value, str(value)) if isinstance(value, int) else str(value)


T = TypeVar("T")


class Background(Generic[T]):
    """A cache, one per process: the value last read, and a reading started in the
    background when it is older than ``seconds`` (a thread, which is a greenlet under
    ``companion serve``'s gevent), never two at once. :meth:`get` never waits, so a page
    costs nothing for a slow command; before the first reading ends it gives ``empty``
    (unknown), and a reading that fails gives ``empty`` too. Each worker process keeps
    its own: none needs to agree with another."""

    def __init__(self, read: Callable[[], T], empty: T, seconds: float = REFRESH_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._read, self._empty, self._seconds, self._clock = read, empty, seconds, clock
        self._value = empty
        self._started: float | None = None  # when the last reading began (clock's time)
        self._running = False  # a reading is under way: no second one begins
        self._thread: threading.Thread | None = None  # the last reading begun
        self._lock = threading.Lock()  # held for a few lines only, never across a reading

    def _due(self) -> bool:
        """Whether a reading should begin now: none under way, none begun within
        ``seconds``. Called under the lock."""
        return not self._running and (self._started is None
                                      or self._clock() - self._started >= self._seconds)

    def refresh(self) -> None:
        """Begin a reading in the background if one is due; return at once. A thread
        that cannot start (the process's limit) leaves the value as it was."""
        with self._lock:
            if not self._due():
                return
            self._started, self._running = self._clock(), True
            thread = self._thread = threading.Thread(target=self._refresh, daemon=True,
                                                     name="companion-doctor")
        try:
            thread.start()
        except RuntimeError:
            with self._lock:
                self._running, self._thread = False, None

    def _refresh(self) -> None:
        """One reading, whatever it raises: it runs away from any page, and a reading
        that failed says unknown."""
        value = self._empty
        try:
            value = self._read()
        except Exception:  # nothing a reading raises reaches a page: unknown
            value = self._empty
        finally:
            with self._lock:
                self._value, self._running = value, False

    def get(self) -> T:
        """The value last read (``empty`` until one is), a reading begun if due."""
        self.refresh()
        with self._lock:
            return self._value

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the reading under way, if any: for a caller that wants it done
        (the tests), never for a page."""
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join(timeout)


def powershell(environ: Mapping[str, str]) -> list[str]:
    """The command that reads Windows' networks: Windows PowerShell by its full path
    under ``SystemRoot`` (:data:`POWERSHELL`), by its bare name only where that is not
    set."""
    root = environ.get("SystemRoot") or environ.get("SYSTEMROOT")
    program = os.path.join(root, *POWERSHELL) if root else "powershell"
    return [program, "-NoProfile", "-NonInteractive", "-Command", WINDOWS_PROFILES]


def read_windows_networks() -> tuple[Network, ...]:
    """Windows' networks and their categories, read now (up to ``COMMAND_SECONDS``);
    none, for unknown, when PowerShell cannot say. ``companion doctor`` waits for it;
    the page never calls it (:func:`windows_networks`)."""
    return parse_profiles(_run(powershell(os.environ)))


#: This process's reading of Windows' networks, for the page (a cache, see Background).
_NETWORKS: Background[tuple[Network, ...]] = Background(read_windows_networks, ())


def windows_networks() -> tuple[Network, ...]:
    """Windows' networks as last read in the background (nothing elsewhere, nothing
    until the first reading ends), never waiting for PowerShell: a new reading begins
    when the last is a minute old."""
    if platform.system() != "Windows":
        return ()
    return _NETWORKS.get()


def warm() -> None:
    """Begin reading what the table page shows, in the background, so that the first
    page has it: for ``companion serve`` at start. Returns at once."""
    windows_networks()


@lru_cache(maxsize=1)
def _interfaces(_minute: int) -> tuple[Interface, ...]:
    return tuple(addresses.interfaces())


def interfaces() -> tuple[Interface, ...]:
    """This machine's addresses, read at most once a minute per process (a cache)."""
    return _interfaces(int(time.monotonic() // 60))


def parse_ufw_conf(text: str | None) -> str | None:
    """ufw's state from /etc/ufw/ufw.conf (readable without root, where ``ufw status``
    is not)."""
    for line in (text or "").splitlines():
        if line.strip().startswith("ENABLED="):
            enabled = line.split("=", 1)[1].strip().strip("\"'").lower() == "yes"
            return "ufw is on (it blocks the port unless allowed)" if enabled else "ufw is off"
    return None


def firewall(system: str) -> tuple[str, ...]:
    """What can be read cheaply of this OS's firewall, one line each."""
    lines: list[str | None] = []
    if system == "Linux":
        conf = UFW_CONF.read_text(errors="replace") if UFW_CONF.is_file() else None
        lines.append(parse_ufw_conf(conf))
        state = _run(["firewall-cmd", "--state"])
        lines.append(f"firewalld is {state}" if state else None)
    elif system == "Darwin":
        lines.append(_run([SOCKETFILTERFW, "--getglobalstate"]))
        lines.append(_run([SOCKETFILTERFW, "--getblockall"]))
    return tuple(line for line in lines if line)


def listening(port: int, hosts: tuple[str, ...] = ("127.0.0.1",)) -> bool:
    """Whether something accepts a connection on this machine's own port, at one of
    its own addresses (no packet leaves the machine)."""
    for host in hosts:
        try:
            with socket.create_connection((host, port), timeout=1):
                return True
        except OSError:
            continue
    return False


def facts(port: int) -> Facts:
    """Everything :func:`report` says, read from this machine now."""
    system = platform.system()
    found = addresses.interfaces()
    networks = read_windows_networks() if system == "Windows" else ()
    program, name = serving_program()
    rules = read_windows_rules(program) if networks else None
    return Facts(system=system, port=port, interfaces=tuple(found), networks=networks,
                 rules=rules, program=name, firewall=firewall(system),
                 listening=listening(port, ("127.0.0.1", addresses.best(found))))


def page_facts(port: int) -> Facts:
    """What the host's page says, from the per-process caches only: no command runs on
    a page's way (Windows' networks are read in the background, :func:`windows_networks`)."""
    return Facts(system=platform.system(), port=port, interfaces=interfaces(),
                 networks=windows_networks())


def networks_read(timeout: float) -> tuple[Network, ...]:
    """Windows' networks once the background reading (begun by :func:`warm`) is done, at
    most ``timeout`` seconds on: for ``companion serve``'s warning in the terminal, which
    waits in a greenlet of its own. Nothing elsewhere."""
    if platform.system() != "Windows":
        return ()
    _NETWORKS.refresh()
    _NETWORKS.wait(timeout)
    return _NETWORKS.get()


#: Seconds Windows' firewall may take to list a program's rules (a laptop with many rules
#: takes several).
RULES_SECONDS = 10.0


def rules_script(program: str) -> str:
    """One PowerShell line: the inbound rules Windows' firewall has for ``program``,
    each with its action and profiles as words, in UTF-8 JSON."""
    quoted = program.replace("'", "''")
    return ("[Console]::OutputEncoding = [System.Text.Encoding]::UTF8; "
            f"Get-NetFirewallApplicationFilter -Program '{quoted}' -ErrorAction "
            "SilentlyContinue | Get-NetFirewallRule | Where-Object { $_.Direction -eq "
            "'Inbound' -and $_.Enabled -eq 'True' } | ForEach-Object { @{ Action = "
            "[string]$_.Action; Profile = [string]$_.Profile } } | ConvertTo-Json -Compress")


def parse_rules(output: str | None) -> tuple[Rule, ...] | None:
    """Rules from :func:`rules_script`'s JSON (an object for one, a list for several,
    nothing for none); None, for unknown, when the output is no such thing."""
    if output is None:
        return None
    if not output.strip():
        return ()
    try:
        found = json.loads(output)
    except (ValueError, RecursionError):
        return None
    rows = found if isinstance(found, list) else [found] if isinstance(found, dict) else []
    return tuple(Rule(str(r.get("Action") or ""),
                      tuple(p.strip() for p in str(r.get("Profile") or "").split(",")))
                 for r in rows if isinstance(r, dict))


def serving_program() -> tuple[str, str]:
    """The file Windows' firewall knows the serving process by, and its name there: the
    built program itself; else the Python that really runs (a venv's python.exe only
    starts its base interpreter, whose file the firewall's rule names)."""
    if getattr(sys, "frozen", False):
        return sys.executable, "Companion"
    return getattr(sys, "_base_executable", sys.executable), "Python"


def read_windows_rules(program: str) -> tuple[Rule, ...] | None:
    """Windows' inbound firewall rules for ``program``, read now; None when PowerShell
    cannot say."""
    command = powershell(os.environ)[:-1] + [rules_script(program)]
    return parse_rules(_run(command, RULES_SECONDS))
