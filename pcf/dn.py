"""Distinguished names as IBM MQ writes and matches them (SSLPEER, SSLCERTI, MQCD SSLPeerName), standard
library only.

IBM's rules for SSLPEER values ("IBM MQ rules for SSLPEER values"), which this module implements:
comma or semicolon separates attributes, blanks around a separator are ignored, a value may be quoted,
attribute types are IBM's names (CN, T, OU, O, L, ST/SP/S, C, DC, SERIALNUMBER, MAIL/E, UID/USERID,
STREET, PC, UNSTRUCTUREDNAME, UNSTRUCTUREDADDRESS, DNQ, ...), values compare irrespective of case, an
asterisk at the start or end of a value (or as the whole value) is a wildcard, attributes the filter
does not name are not checked and the filter's order does not matter -- except for OU and DC, which
may repeat: the filter's OUs must match the DN's first OUs in order (``OU=IBM,OU=WEBSPHERE``: at least
two OUs, the first IBM, the second WEBSPHERE), likewise DC.
"""

from __future__ import annotations

import re

# IBM's attribute names, and the synonyms each is also written as.
SYNONYMS = {"SP": "ST", "S": "ST", "MAIL": "E", "EMAIL": "E", "EMAILADDRESS": "E", "USERID": "UID",
            "POSTALCODE": "PC", "SERIALNUMBER": "SERIALNUMBER", "STREET": "STREET"}
KNOWN = frozenset({"CN", "T", "OU", "O", "L", "ST", "C", "DC", "SERIALNUMBER", "E", "UID", "STREET", "PC",
                   "UNSTRUCTUREDNAME", "UNSTRUCTUREDADDRESS", "DNQ", "GIVENNAME", "SN", "INITIALS",
                   "GENERATIONQUALIFIER", "NAME", "PSEUDONYM"})
REPEATABLE = ("OU", "DC")  # matched as ordered sequences


class DNError(ValueError):
    """Not a valid peer name (the client's MQRC_SSL_PEER_NAME_ERROR; MQRCCF_SSL_PEER_NAME_ERROR for a command)."""


def canonical(attr: str) -> str:
    a = attr.strip().upper()
    return SYNONYMS.get(a, a)


def parse(text: str) -> list[tuple[str, str]]:
    """``CN=a, OU=b;O="c, d"`` -> [("CN", "a"), ("OU", "b"), ("O", "c, d")]."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " ,;":
            i += 1
        if i >= n:
            break
        eq = text.find("=", i)
        if eq < 0:
            raise DNError(f"no '=' in {text[i:]!r}")
        attr = text[i:eq]
        if attr != attr.rstrip() or not attr.strip():
            raise DNError(f"blank before '=' in {text!r}")
        name = canonical(attr)
        if name not in KNOWN:
            raise DNError(f"attribute {attr!r} is not one IBM MQ allows")
        i = eq + 1
        while i < n and text[i] == " ":
            i += 1
        if i < n and text[i] == '"':
            end = text.find('"', i + 1)
            if end < 0:
                raise DNError(f"unterminated quote in {text!r}")
            value = text[i + 1:end]
            i = end + 1
        else:
            chars = []
            while i < n and text[i] not in ",;":
                if text[i] == "\\" and i + 1 < n:
                    i += 1
                chars.append(text[i])
                i += 1
            value = "".join(chars).strip()
        out.append((name, value))
        while i < n and text[i] == " ":
            i += 1
        if i < n and text[i] not in ",;":
            raise DNError(f"unexpected {text[i]!r} in {text!r}")
    if not out:
        raise DNError("empty peer name")
    return out


_QUOTED = re.compile(r"[,;=+]")  # a value holding one of these is shown in double quotes


def render(rdns: list[tuple[str, str]]) -> str:
    """A DN as IBM shows it (SSLPEER/SSLCERTI in channel status): ``CN=x,OU=y,O=z,C=GB``.  (Each TLS
    connection's channel status renders two: one pattern search a value, no generator per character.)"""
    return ",".join(f'{a}="{v}"' if _QUOTED.search(v) else f"{a}={v}" for a, v in rdns)


def _value_matches(pattern: str, value: str) -> bool:
    p, v = pattern.strip().lower(), value.strip().lower()
    if "*" not in p:
        return p == v
    if p == "*":
        return True
    if "*" in p.strip("*"):
        return False  # IBM: an asterisk only at the start or the end of a value
    body = re.escape(p.strip("*"))
    pattern = ("" if not p.startswith("*") else ".*") + body + (".*" if p.endswith("*") else "")
    return re.fullmatch(pattern, v) is not None


def matches(pattern: str | list[tuple[str, str]], dn: list[tuple[str, str]]) -> bool:
    """Does the DN (as attribute pairs, in the order IBM shows it) match an SSLPEER-style pattern?"""
    filt = parse(pattern) if isinstance(pattern, str) else pattern
    dn = [(canonical(a), v) for a, v in dn]
    for attr in REPEATABLE:
        wanted = [v for a, v in filt if a == attr]
        have = [v for a, v in dn if a == attr]
        if len(wanted) > len(have) or not all(_value_matches(w, h) for w, h in zip(wanted, have)):
            return False
    for attr, want in filt:
        if attr in REPEATABLE:
            continue
        have = [v for a, v in dn if a == attr]
        if not have or not any(_value_matches(want, h) for h in have):
            return False
    return True


def valid(pattern: str) -> bool:
    try:
        parse(pattern)
    except DNError:
        return False
    return True
