"""IBM MQ CipherSpecs (the SSLCIPH vocabulary) and the SNI name IBM's clients send, standard library only.

Both ends use this: the server checks the protocol and cipher a TLS handshake negotiated against the
channel's SSLCIPH, and qmlite's client (``ibmmqc``) turns an MQCD's SSLCipherSpec into the protocol
versions and cipher it offers.  The names are IBM's list for TLS 1.2 and TLS 1.3 on Multiplatforms
("Enabling CipherSpecs", MQ 9.3/9.4); each maps to the cipher's name as OpenSSL (and so Python's
``ssl``) reports it.  docs/tls.md lists them; docs/decisions.md X2 says how the check is made.
"""

from __future__ import annotations

import dataclasses
import functools

TLS12 = "TLSv1.2"
TLS13 = "TLSv1.3"


@dataclasses.dataclass(frozen=True, slots=True)
class CipherSpec:
    name: str
    protocols: tuple[str, ...]  # the protocol versions that satisfy it
    cipher: str = ""  # OpenSSL's name for the one cipher it names; "" for the ANY_* aliases
    weak: bool = False  # deprecated by IBM (disabled unless AMQ_SSL_WEAK_CIPHER_ENABLE names it)

    @property
    def alias(self) -> bool:
        return not self.cipher

    def accepts(self, protocol: str, cipher: str) -> bool:
        """Does a handshake that negotiated ``protocol`` and ``cipher`` (OpenSSL names) satisfy this
        CipherSpec?  IBM's rule: an ANY_* alias fixes only the protocol versions; a named CipherSpec
        must be the cipher negotiated, on its protocol."""
        if protocol not in self.protocols:
            return False
        return self.alias or cipher == self.cipher


def _named(protocol: str, pairs: dict[str, str], weak: frozenset[str] = frozenset()) -> dict[str, CipherSpec]:
    return {name: CipherSpec(name, (protocol,), openssl, name in weak) for name, openssl in pairs.items()}


_TLS13_NAMED = {  # TLS 1.3 suites carry the same names in IBM's list and in OpenSSL
    name: name for name in ("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
                            "TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_8_SHA256")}
_TLS12_NAMED = {
    "ECDHE_ECDSA_3DES_EDE_CBC_SHA256": "ECDHE-ECDSA-DES-CBC3-SHA",
    "ECDHE_ECDSA_AES_128_CBC_SHA256": "ECDHE-ECDSA-AES128-SHA256",
    "ECDHE_ECDSA_AES_128_GCM_SHA256": "ECDHE-ECDSA-AES128-GCM-SHA256",
    "ECDHE_ECDSA_AES_256_CBC_SHA384": "ECDHE-ECDSA-AES256-SHA384",
    "ECDHE_ECDSA_AES_256_GCM_SHA384": "ECDHE-ECDSA-AES256-GCM-SHA384",
    "ECDHE_ECDSA_NULL_SHA256": "ECDHE-ECDSA-NULL-SHA",
    "ECDHE_ECDSA_RC4_128_SHA256": "ECDHE-ECDSA-RC4-SHA",
    "ECDHE_RSA_3DES_EDE_CBC_SHA256": "ECDHE-RSA-DES-CBC3-SHA",
    "ECDHE_RSA_AES_128_CBC_SHA256": "ECDHE-RSA-AES128-SHA256",
    "ECDHE_RSA_AES_128_GCM_SHA256": "ECDHE-RSA-AES128-GCM-SHA256",
    "ECDHE_RSA_AES_256_CBC_SHA384": "ECDHE-RSA-AES256-SHA384",
    "ECDHE_RSA_AES_256_GCM_SHA384": "ECDHE-RSA-AES256-GCM-SHA384",
    "ECDHE_RSA_NULL_SHA256": "ECDHE-RSA-NULL-SHA",
    "ECDHE_RSA_RC4_128_SHA256": "ECDHE-RSA-RC4-SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA256": "AES128-SHA256",
    "TLS_RSA_WITH_AES_128_GCM_SHA256": "AES128-GCM-SHA256",
    "TLS_RSA_WITH_AES_256_CBC_SHA256": "AES256-SHA256",
    "TLS_RSA_WITH_AES_256_GCM_SHA384": "AES256-GCM-SHA384",
    "TLS_RSA_WITH_NULL_SHA256": "NULL-SHA256",
}
_TLS12_WEAK = frozenset(n for n in _TLS12_NAMED if "3DES" in n or "RC4" in n or "NULL" in n)

CIPHER_SPECS: dict[str, CipherSpec] = {
    "ANY": CipherSpec("ANY", (TLS12, TLS13)),  # any protocol this end supports (TLS 1.2 and 1.3 here)
    "ANY_TLS12": CipherSpec("ANY_TLS12", (TLS12,)),
    "ANY_TLS12_OR_HIGHER": CipherSpec("ANY_TLS12_OR_HIGHER", (TLS12, TLS13)),
    "ANY_TLS13": CipherSpec("ANY_TLS13", (TLS13,)),
    "ANY_TLS13_OR_HIGHER": CipherSpec("ANY_TLS13_OR_HIGHER", (TLS13,)),
    **_named(TLS13, _TLS13_NAMED),
    **_named(TLS12, _TLS12_NAMED, _TLS12_WEAK),
}
ALIASES = tuple(name for name, spec in CIPHER_SPECS.items() if spec.alias)
BY_OPENSSL = {spec.cipher: spec for spec in CIPHER_SPECS.values() if spec.cipher}


def lookup(name: str) -> CipherSpec | None:
    """The CipherSpec an SSLCIPH value names (IBM's names are upper case; blanks around are ignored)."""
    return CIPHER_SPECS.get(name.strip().upper())


def name_of(protocol: str, cipher: str) -> str:
    """IBM's name for a negotiated cipher (what channel status would show), else OpenSSL's."""
    spec = BY_OPENSSL.get(cipher)
    return spec.name if spec is not None and protocol in spec.protocols else cipher


# ---- SNI (IBM: "How IBM MQ provides multiple certificates capability") ------------------------------
SNI_SUFFIX = ".chl.mq.ibm.com"


def sni_for_channel(channel: str) -> str:
    """The server name IBM's clients send for ``channel`` (OutboundSNI=CHANNEL, the default): upper-case
    letters folded to lower case, digits kept, every other character (lower-case letters included) as
    its two lower-case hex digits and a hyphen, then ``.chl.mq.ibm.com``.  TO.QMGR1 -> to2e-qmgr1...."""
    out = []
    for ch in channel.rstrip():
        if "A" <= ch <= "Z":
            out.append(ch.lower())
        elif "0" <= ch <= "9":
            out.append(ch)
        else:
            out.append(f"{ord(ch) & 0xFF:02x}-")
    return "".join(out) + SNI_SUFFIX


@functools.lru_cache(maxsize=256)  # the same few server names on every TLS connection
def channel_for_sni(server_name: str | None) -> str | None:
    """The channel name a server name of ``sni_for_channel``'s form stands for; None for any other."""
    if not server_name or not server_name.lower().endswith(SNI_SUFFIX):
        return None
    text = server_name[: -len(SNI_SUFFIX)].lower()
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if i + 2 < len(text) and text[i + 2] == "-" and all(c in "0123456789abcdef" for c in text[i:i + 2]):
            out.append(chr(int(text[i:i + 2], 16)))
            i += 3
        elif ch.isalpha():
            out.append(ch.upper())
            i += 1
        elif ch.isdigit():
            out.append(ch)
            i += 1
        else:
            return None
    return "".join(out)
