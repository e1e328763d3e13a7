"""The TLS vocabulary both ends share: IBM's CipherSpecs and how a negotiated protocol and cipher satisfy
each, the SNI name IBM's clients derive from a channel name, and IBM's SSLPEER distinguished-name rules."""

from __future__ import annotations

import pytest

from qmlite.pcf import cipherspecs as CS
from qmlite.pcf import dn

# IBM's "Enabling CipherSpecs" list for TLS 1.2 and 1.3 on Multiplatforms (MQ 9.3/9.4).
IBM_TLS13 = ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
             "TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_8_SHA256"]
IBM_TLS12 = ["ECDHE_ECDSA_3DES_EDE_CBC_SHA256", "ECDHE_ECDSA_AES_128_CBC_SHA256", "ECDHE_ECDSA_AES_128_GCM_SHA256",
             "ECDHE_ECDSA_AES_256_CBC_SHA384", "ECDHE_ECDSA_AES_256_GCM_SHA384", "ECDHE_ECDSA_NULL_SHA256",
             "ECDHE_ECDSA_RC4_128_SHA256", "ECDHE_RSA_3DES_EDE_CBC_SHA256", "ECDHE_RSA_AES_128_CBC_SHA256",
             "ECDHE_RSA_AES_128_GCM_SHA256", "ECDHE_RSA_AES_256_CBC_SHA384", "ECDHE_RSA_AES_256_GCM_SHA384",
             "ECDHE_RSA_NULL_SHA256", "ECDHE_RSA_RC4_128_SHA256", "TLS_RSA_WITH_AES_128_CBC_SHA256",
             "TLS_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_256_CBC_SHA256", "TLS_RSA_WITH_AES_256_GCM_SHA384",
             "TLS_RSA_WITH_NULL_SHA256"]
ALIASES = {"ANY": (CS.TLS12, CS.TLS13), "ANY_TLS12": (CS.TLS12,), "ANY_TLS12_OR_HIGHER": (CS.TLS12, CS.TLS13),
           "ANY_TLS13": (CS.TLS13,), "ANY_TLS13_OR_HIGHER": (CS.TLS13,)}


def test_every_cipherspec_ibm_lists_is_known_and_nothing_else():
    assert set(CS.CIPHER_SPECS) == set(IBM_TLS13) | set(IBM_TLS12) | set(ALIASES)


@pytest.mark.parametrize("name", IBM_TLS13 + IBM_TLS12)
def test_a_named_cipherspec_accepts_only_its_cipher_on_its_protocol(name):
    spec = CS.lookup(name)
    protocol = CS.TLS13 if name in IBM_TLS13 else CS.TLS12
    other = CS.TLS12 if protocol == CS.TLS13 else CS.TLS13
    assert spec.accepts(protocol, spec.cipher)
    assert not spec.accepts(other, spec.cipher)
    for rival in CS.CIPHER_SPECS.values():
        if rival.cipher and rival.cipher != spec.cipher:
            assert not spec.accepts(protocol, rival.cipher)
    assert CS.name_of(protocol, spec.cipher) == name  # what channel status shows


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_an_alias_fixes_only_the_protocol_versions(alias):
    spec = CS.lookup(alias.lower())  # SSLCIPH values are looked up irrespective of case
    for protocol in (CS.TLS12, CS.TLS13, "TLSv1.1", "TLSv1"):
        for cipher in ("ECDHE-RSA-AES128-GCM-SHA256", "TLS_AES_256_GCM_SHA384"):
            assert spec.accepts(protocol, cipher) == (protocol in ALIASES[alias])


def test_an_unknown_name_is_no_cipherspec():
    assert CS.lookup("TLS_RSA_WITH_AES_128_CBC_SHA") is None  # TLS 1.0: not in the TLS 1.2/1.3 list
    assert CS.lookup("") is None


@pytest.mark.parametrize("channel, sni", [
    ("TO.QMGR1", "to2e-qmgr1.chl.mq.ibm.com"),  # IBM's own examples
    ("to.qmgr1", "74-6f-2e-71-6d-67-72-1.chl.mq.ibm.com"),
    ("DEV.APP.SVRCONN", "dev2e-app2e-svrconn.chl.mq.ibm.com"),
    ("A_B/C%D-E", "a5f-b2f-c25-d2d-e.chl.mq.ibm.com"),
])
def test_the_sni_ibm_clients_send_for_a_channel(channel, sni):
    assert CS.sni_for_channel(channel) == sni
    assert CS.channel_for_sni(sni) == channel
    assert CS.channel_for_sni(sni.upper()) == channel  # host names compare irrespective of case


def test_a_server_name_of_another_form_names_no_channel():
    assert CS.channel_for_sni("mq.example.com") is None
    assert CS.channel_for_sni(None) is None
    assert CS.channel_for_sni("bad_char.chl.mq.ibm.com") is None


# ---- SSLPEER rules -----------------------------------------------------------------------------------
DN = [("SERIALNUMBER", "01:AB"), ("CN", "John Smith"), ("OU", "Test"), ("OU", "Clients"), ("O", "IBM"),
      ("L", "Hursley"), ("ST", "Hampshire"), ("C", "GB"), ("DC", "example"), ("DC", "com")]


@pytest.mark.parametrize("pattern, expected", [
    ("CN=John Smith, O=IBM ,OU=Test , C=GB", True),  # blanks around separators ignored
    ("CN=John Smith; O=IBM", True),  # semicolon separates as a comma does
    ("C=GB,CN=John Smith", True),  # the order of different attributes does not matter
    ("CN=john smith", True),  # values compare irrespective of case
    ('CN="John Smith"', True),  # a value may be quoted
    ("CN=John*", True),  # trailing wildcard
    ("CN=*Smith", True),  # leading wildcard
    ("CN=*ohn Smi*", True),  # both
    ("CN=*", True),
    ("CN=Jo*th", False),  # a wildcard only at the start or the end
    ("CN=John", False),
    ("OU=Test", True),  # the first OU
    ("OU=Test,OU=Clients", True),  # OUs in order, from the first
    ("OU=Clients", False),  # the first OU is Test
    ("OU=Clients,OU=Test", False),  # out of order
    ("OU=Test,OU=Clients,OU=More", False),  # more OUs than the DN has
    ("DC=example,DC=com", True),
    ("DC=com", False),
    ("SP=Hampshire", True), ("S=Hampshire", True), ("ST=Hampshire", True),  # ST's synonyms
    ("SERIALNUMBER=01:ab", True),
    ("L=Winchester", False),
    ("UID=someone", False),  # an attribute the DN lacks
])
def test_sslpeer_matching(pattern, expected):
    assert dn.matches(pattern, DN) is expected


@pytest.mark.parametrize("bad", ["", "CN", "CN =x", "XX=1", 'CN="open', "CN=a,=b"])
def test_an_invalid_peer_name_is_refused(bad):
    assert not dn.valid(bad)
    with pytest.raises(dn.DNError):
        dn.parse(bad)


def test_a_dn_renders_as_ibm_shows_it():
    assert dn.render([("CN", "a"), ("OU", "b, c"), ("C", "GB")]) == 'CN=a,OU="b, c",C=GB'
    for special in ",;=+":  # each of the characters that puts a value in quotes, and no other
        assert dn.render([("CN", f"a{special}b"), ("O", "x y-z")]) == f'CN="a{special}b",O=x y-z'
    assert dn.parse(dn.render([("CN", "a"), ("OU", "b, c")])) == [("CN", "a"), ("OU", "b, c")]
