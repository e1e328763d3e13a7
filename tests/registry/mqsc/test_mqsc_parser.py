"""MQSC text: reading scripts, tokens, translation into PCF (registry/mqsc: reader, lexer, translate)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.security import vocab as A
from qmlite.registry.mqsc import check_mqsc, format_report
from qmlite.registry.mqsc.lexer import MqscSyntaxError, tokenize
from qmlite.registry.mqsc.reader import split_commands
from qmlite.registry.mqsc.translate import translate


def params(text: str) -> dict[int, object]:
    msg = translate(text).message
    assert msg is not None
    return {p.parameter: (p.values if isinstance(p, (P.CFIL, P.CFSL)) else p.value) for p in msg.parameters}


# ---- reading scripts ---------------------------------------------------------------------------
def test_comments_blank_lines_and_both_continuations():
    script = ("* a comment\n\nDEFINE QLOCAL(A) +\n      DESCR('x -\ny')\n  \nDIS Q(*)   ;\n"
              "ALTER NAMELIST(N) +\n NAMES(A+\n ,B)\n")
    commands = split_commands(script)
    assert [c.text for c in commands] == ["DEFINE QLOCAL(A) DESCR('x y')", "DIS Q(*)", "ALTER NAMELIST(N) NAMES(A,B)"]
    assert [c.line for c in commands] == [3, 7, 8]
    assert commands[0].comments == ("* a comment",)
    assert commands[0].lines == ("DEFINE QLOCAL(A) +", "      DESCR('x -", "y')")


def test_plus_keeps_no_leading_blanks_and_minus_keeps_them():
    assert split_commands("DEFINE QLOCAL('Fr+\n   ed')")[0].text == "DEFINE QLOCAL('Fred')"
    assert split_commands("DEFINE QLOCAL('Fr-\n   ed')")[0].text == "DEFINE QLOCAL('Fr   ed')"


def test_semicolon_ends_a_command_even_after_a_plus():
    assert [c.text for c in split_commands("DIS QMGR +;\nDIS Q(*)")] == ["DIS QMGR", "DIS Q(*)"]


def test_a_semicolon_inside_quotes_is_text():
    assert split_commands("ALTER QMGR DESCR('a;')")[0].text == "ALTER QMGR DESCR('a;')"


# ---- tokens ------------------------------------------------------------------------------------
def test_keywords_and_unquoted_values_fold_to_upper_case_quoted_ones_do_not():
    tokens = tokenize("def ql(my.q) descr('Hello  World') maxdepth(5)")
    assert [t.word for t in tokens] == ["DEF", "QL", "DESCR", "MAXDEPTH"]
    assert tokens[1].value == "MY.Q"
    assert tokens[2].value == "Hello  World" and tokens[2].items[0].quoted


def test_doubled_quote_is_one_quote_and_lists_split_on_commas_and_blanks():
    tokens = tokenize("ALTER QMGR DESCR('it''s') X(A, B C,D)")
    assert tokens[2].value == "it's"
    assert [i.text for i in tokens[3].items] == ["A", "B", "C", "D"]


def test_blanks_and_commas_are_allowed_around_values():
    assert params("ALTER QLOCAL  ('Account'  )  ,  TRIGDPTH  (  1)")[C.MQIA_TRIGGER_DEPTH] == 1


@pytest.mark.parametrize("text, segment", [
    ("DEFINE QLOCAL(A", "DEFINE QLOCAL(A"),
    ("DEFINE QLOCAL('A)", "DEFINE QLOCAL('A)"),
    ("DEFINE QLOCAL(A))", "DEFINE QLOCAL(A))"),
    ("DEFINE 'QLOCAL'", "DEFINE '"),
    ("DEFINE QLOCAL(A(B))", "DEFINE QLOCAL(A("),
])
def test_unbalanced_text_is_a_syntax_error_with_its_segment(text, segment):
    with pytest.raises(MqscSyntaxError) as err:
        tokenize(text)
    assert err.value.segment == segment


# ---- translation -------------------------------------------------------------------------------
def test_define_qlocal_maps_keywords_to_the_pcf_parameters():
    msg = translate("DEF QL(MY.Q) DESCR('d') MAXDEPTH(10) DEFPSIST(YES) PUT(DISABLED) NOTRIGGER NOSHARE "
                    "REPLACE").message
    assert msg.header.Command == C.MQCMD_CREATE_Q
    got = params("DEF QL(MY.Q) DESCR('d') MAXDEPTH(10) DEFPSIST(YES) PUT(DISABLED) NOTRIGGER NOSHARE REPLACE")
    assert got == {C.MQCA_Q_NAME: "MY.Q", C.MQIA_Q_TYPE: C.MQQT_LOCAL, C.MQCA_Q_DESC: "d", C.MQIA_MAX_Q_DEPTH: 10,
                   C.MQIA_DEF_PERSISTENCE: C.MQPER_PERSISTENT, C.MQIA_INHIBIT_PUT: C.MQQA_PUT_INHIBITED,
                   C.MQIA_TRIGGER_CONTROL: C.MQTC_OFF, C.MQIA_SHAREABILITY: C.MQQA_NOT_SHAREABLE,
                   C.MQIACF_REPLACE: C.MQRP_YES}


@pytest.mark.parametrize("noun, qtype", [("QLOCAL", C.MQQT_LOCAL), ("QL", C.MQQT_LOCAL), ("QMODEL", C.MQQT_MODEL),
                                         ("QM", C.MQQT_MODEL), ("QALIAS", C.MQQT_ALIAS), ("QA", C.MQQT_ALIAS),
                                         ("QREMOTE", C.MQQT_REMOTE), ("QR", C.MQQT_REMOTE)])
def test_queue_type_abbreviations(noun, qtype):
    assert params(f"DEFINE {noun}(Q)")[C.MQIA_Q_TYPE] == qtype


def test_define_like_is_the_copy_command():
    tr = translate("DEFINE QLOCAL(NEW) LIKE(OLD) MAXDEPTH(3)")
    assert tr.message.header.Command == C.MQCMD_COPY_Q
    got = params("DEFINE QLOCAL(NEW) LIKE(OLD) MAXDEPTH(3)")
    assert got[C.MQCACF_FROM_Q_NAME] == "OLD" and got[C.MQCACF_TO_Q_NAME] == "NEW"


def test_define_sub_with_pubsub_keywords():
    got = params("DEF SUB('s1') TOPICSTR('Price/Fruit') DEST(Q1) DESTCLAS(PROVIDED) EXPIRY(UNLIMITED) "
                 "PUBPRTY(ASPUB) PSPROP(RFH2) WSCHEMA(CHAR) SUBSCOPE(QMGR) VARUSER(FIXED) REQONLY(YES) SUBLEVEL(2)")
    assert got == {C.MQCACF_SUB_NAME: "s1", C.MQCA_TOPIC_STRING: "Price/Fruit", C.MQCACF_DESTINATION: "Q1",
                   C.MQIACF_DESTINATION_CLASS: C.MQDC_PROVIDED, C.MQIACF_EXPIRY: C.MQEI_UNLIMITED,
                   C.MQIACF_PUB_PRIORITY: C.MQPRI_PRIORITY_AS_PUBLISHED, C.MQIACF_PUBSUB_PROPERTIES: C.MQPSPROP_RFH2,
                   C.MQIACF_WILDCARD_SCHEMA: C.MQWS_CHAR, C.MQIACF_SUBSCRIPTION_SCOPE: C.MQTSCOPE_QMGR,
                   C.MQIACF_VARIABLE_USER_ID: C.MQVU_FIXED_USER, C.MQIACF_REQUEST_ONLY: C.MQRU_PUBLISH_ON_REQUEST,
                   C.MQIACF_SUB_LEVEL: 2}


def test_unquoted_topic_string_is_folded_as_ibm_folds_it():
    assert params("DEFINE TOPIC(T) TOPICSTR(price/fruit)")[C.MQCA_TOPIC_STRING] == "PRICE/FRUIT"


def test_display_attributes_all_where_and_generic_names():
    got = params("DIS QLOCAL(APP*) WHERE(CURDEPTH GT 5) MAXDEPTH DESCR")
    assert got[C.MQCA_Q_NAME] == "APP*"
    assert got[C.MQIACF_Q_ATTRS] == (C.MQIA_MAX_Q_DEPTH, C.MQCA_Q_DESC)
    flt = translate("DIS QLOCAL(APP*) WHERE(CURDEPTH GT 5)").message.parameters[-1]
    assert isinstance(flt, P.CFIF) and (flt.parameter, flt.operator, flt.value) == (
        C.MQIA_CURRENT_Q_DEPTH, C.MQCFOP_GREATER, 5)
    assert params("DIS SUB(*) ALL")[C.MQIACF_SUB_ATTRS] == (C.MQIACF_ALL,)
    # no attributes: a generic name shows the name and type only, a specific name every attribute (IBM)
    assert params("DIS QUEUE(X*)")[C.MQIACF_Q_ATTRS] == (C.MQCA_Q_NAME, C.MQIA_Q_TYPE)
    assert params("DIS QUEUE(X)")[C.MQIACF_Q_ATTRS] == (C.MQIACF_ALL,)
    assert params("DIS SUB(S*)")[C.MQIACF_SUB_ATTRS] == (C.MQBACF_SUB_ID, C.MQCACF_SUB_NAME)
    assert params("DIS QMGR")[C.MQIACF_Q_MGR_ATTRS] == (C.MQIACF_ALL,)


@pytest.mark.parametrize("op, code", [("LT", C.MQCFOP_LESS), ("GT", C.MQCFOP_GREATER), ("EQ", C.MQCFOP_EQUAL),
                                      ("NE", C.MQCFOP_NOT_EQUAL), ("LE", C.MQCFOP_NOT_GREATER),
                                      ("GE", C.MQCFOP_NOT_LESS), ("LK", C.MQCFOP_LIKE), ("NL", C.MQCFOP_NOT_LIKE)])
def test_where_operators(op, code):
    flt = translate(f"DIS TOPIC(*) WHERE(TOPICSTR {op} 'a*')").message.parameters[-1]
    assert isinstance(flt, P.CFSF) and flt.operator == code and flt.value == "a*"


@pytest.mark.parametrize("op, code", [("CT", C.MQCFOP_CONTAINS), ("EX", C.MQCFOP_EXCLUDES),
                                      ("CTG", C.MQCFOP_CONTAINS_GEN), ("EXG", C.MQCFOP_EXCLUDES_GEN)])
def test_where_list_operators(op, code):
    flt = translate(f"DIS NL(*) WHERE(NAMES {op} 'Q1')").message.parameters[-1]
    assert isinstance(flt, P.CFSF) and flt.parameter == C.MQCA_NAMES and flt.operator == code


def test_where_on_a_word_valued_attribute_sends_its_number():
    flt = translate("DIS SUB(*) WHERE(DESTCLAS EQ MANAGED)").message.parameters[-1]
    assert (flt.parameter, flt.value) == (C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED)


def test_set_authrec_and_display_authrec():
    got = params("SET AUTHREC PROFILE('DEV.**') OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT,GET) AUTHRMV(INQ)")
    assert got == {C.MQCACF_AUTH_PROFILE_NAME: "DEV.**", C.MQIACF_OBJECT_TYPE: C.MQOT_Q,
                   C.MQCACF_PRINCIPAL_ENTITY_NAMES: ("app",),
                   C.MQIACF_AUTH_ADD_AUTHS: (A.MQAUTH_OUTPUT, A.MQAUTH_INPUT),
                   C.MQIACF_AUTH_REMOVE_AUTHS: (A.MQAUTH_INQUIRE,)}
    got = params("DIS AUTHREC PROFILE(X) PRINCIPAL('app')")
    assert got[C.MQCACF_ENTITY_NAME] == "app" and got[C.MQIACF_ENTITY_TYPE] == A.MQZAET_PRINCIPAL
    assert got[C.MQIACF_AUTH_OPTIONS] == A.MQAUTHOPT_NAME_ALL_MATCHING | A.MQAUTHOPT_ENTITY_EXPLICIT


def test_display_tpstatus_type_and_clear_topicstr():
    assert params("DIS TPSTATUS('a/#') TYPE(SUB)")[C.MQIACF_TOPIC_STATUS_TYPE] == C.MQIACF_TOPIC_SUB
    assert translate("CLEAR TOPICSTR('a') CLRTYPE(RETAINED)").message.header.Command == C.MQCMD_CLEAR_TOPIC_STRING


def test_extension_and_end():
    assert translate("reset qmlite").row is None
    assert translate("END").verb == "END"


@pytest.mark.parametrize("text, segment", [
    ("FOO QLOCAL(A)", "FOO"),
    ("DEFINE WIDGET(A)", "DEFINE WIDGET"),
    ("DEFINE QLOCAL(A) BOGUS(1)", "DEFINE QLOCAL(A) BOGUS"),
    ("DEFINE QLOCAL(A) DEFPSIST(MAYBE)", "DEFINE QLOCAL(A) DEFPSIST(MAYBE)"),
    ("DEFINE QLOCAL(A) MAXDEPTH(lots)", "DEFINE QLOCAL(A) MAXDEPTH(lots)"),
    ("DEFINE QLOCAL(A) MAXDEPTH", "DEFINE QLOCAL(A) MAXDEPTH"),
    ("DEFINE QLOCAL(A) MAXDEPTH(1) MAXDEPTH(2)", "DEFINE QLOCAL(A) MAXDEPTH(1) MAXDEPTH(2)"),
    ("DEFINE QLOCAL(A) REPLACE NOREPLACE", "DEFINE QLOCAL(A) REPLACE NOREPLACE"),
    ("DEFINE QLOCAL", "DEFINE QLOCAL"),
    ("DIS QMGR(X)", "DIS QMGR(X)"),
    ("DIS Q(*) WHERE(CURDEPTH ZZ 1)", "DIS Q(*) WHERE(CURDEPTH ZZ 1)"),
    ("DIS SUB(*) SUBID(XYZ)", "DIS SUB(*) SUBID(XYZ)"),
])
def test_syntax_errors_name_the_segment(text, segment):
    with pytest.raises(MqscSyntaxError) as err:
        translate(text)
    assert err.value.segment == segment


def test_verify_only_reports_syntax_and_runs_nothing():
    results = check_mqsc("DEFINE QLOCAL(A)\nDEFINE QLOCAL(B) NONSENSE\n")
    report = format_report(results)
    assert report.splitlines() == [
        "     1 : DEFINE QLOCAL(A)",
        "     2 : DEFINE QLOCAL(B) NONSENSE",
        "AMQ8405I: Syntax error detected at or near end of command segment below:-",
        "DEFINE QLOCAL(B) NONSENSE",
        "",
        "2 MQSC commands read.",
        "One command has a syntax error.",
        "All valid MQSC commands were processed.",
    ]


# ---- fuzzing: never a traceback, always a translation or an AMQ8405I answer -------------------------
_ALPHABET = st.sampled_from(list("ABCDEFQLSUBTOPIC*'(),+- \t;\n.=/#0123456789xyz") + ["DEFINE ", "DIS ", "SUB",
                                                                                        "QLOCAL", "WHERE(", "ALL"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_fuzzed_text_never_crashes_the_reader_lexer_or_translator(text):
    for source in split_commands(text):
        try:
            translate(source.text)
        except MqscSyntaxError as err:
            assert isinstance(err.segment, str) and len(err.segment) <= len(source.text) + 1
    for result in check_mqsc(text):
        assert result.text == [] or result.text[0].startswith("AMQ8405I: ")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_any_unicode_text_gets_a_syntax_answer_or_a_translation(text):
    for result in check_mqsc(text):
        assert result.completion_code in (C.MQCC_OK, C.MQCC_FAILED)
        if result.completion_code == C.MQCC_FAILED:
            assert result.syntax_error
