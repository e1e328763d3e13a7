"""Deterministic fault injection: rules that make chosen MQI calls and PCF commands fail on demand.

A qmlite extension for test suites (issue 23, docs/faults.md).  A rule names what it matches - an MQI
verb (or a PCF command), an object, a user, a channel and an application, each exact or generic
(``APP.*``) - and what it does when it fires: fail the call with a reason code, delay its reply, break
the connection, leave a PCF command unanswered, fail a persistent put as a full disk does, or make the
queue behave as put- or get-inhibited.  It fires from its NTH match on, COUNT times (0: without end),
with probability PROB drawn from its own generator seeded by SEED, so the same run fails the same calls.

This module only decides.  The queue manager's verbs ask ``Faults.match`` before acting
(registry/qmgr.py) and raise the reason as the real failure would; the command server asks
``match_command``; what needs the network (a delay, a broken connection) is handed to the transport
as the returned ``Fault`` (server/mqi.py acts on it).  MQSC (``SET/DISPLAY/DELETE QMLITE FAULT``),
REST and the pytest plugin all call this one object, so they cannot disagree.

Matching must cost almost nothing when no rule applies (a table of 1,000 rules costs an MQI call no
more than 5%, docs/benchmarks.md): rules are indexed by verb, then by exact object name and by the
prefix of a generic one, so a call looks at only the rules that could match it.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable

import structlog

from qmlite.pcf import constants as C
from qmlite.registry.errors import MQIError

log = structlog.get_logger("qmlite.faults")

MQI_VERBS = ("MQCONN", "MQOPEN", "MQPUT", "MQPUT1", "MQGET", "MQSUB", "MQCMIT", "MQBACK", "MQINQ", "MQSET")
# A message channel's own steps (docs/faults.md "Message channels", decisions MCT5-MCT6): its start, at
# either end, and each message a sending end is about to send in a batch.  OBJECT and CHANNEL are the
# channel's name.
MCASTART, MCAMSG = "MCASTART", "MCAMSG"
CHANNEL_VERBS = (MCASTART, MCAMSG)
PCF = "PCF"  # every PCF command the command server runs but Escape (so MQSC over PCF can still remove a rule)

FAIL, DELAY, BREAK, NOREPLY, DISKFULL, PUTINH, GETINH = (
    "FAIL", "DELAY", "BREAK", "NOREPLY", "DISKFULL", "PUTINH", "GETINH")
ACTIONS = (FAIL, DELAY, BREAK, NOREPLY, DISKFULL, PUTINH, GETINH)
# The reason each action carries (FAIL: the rule's own); the transport acts on DELAY and BREAK.
ACTION_REASON = {DISKFULL: C.MQRC_RESOURCE_PROBLEM, PUTINH: C.MQRC_PUT_INHIBITED, GETINH: C.MQRC_GET_INHIBITED,
                 BREAK: C.MQRC_CONNECTION_BROKEN}
# The verbs each action may name, and the ones it applies to when VERB is not given.
_PUTS = ("MQPUT", "MQPUT1")
ACTION_VERBS = {FAIL: None, DELAY: MQI_VERBS + CHANNEL_VERBS, BREAK: MQI_VERBS + CHANNEL_VERBS, NOREPLY: (PCF,),
                DISKFULL: _PUTS, PUTINH: _PUTS, GETINH: ("MQGET",)}
DEFAULT_VERBS = {NOREPLY: (PCF,), DISKFULL: _PUTS, PUTINH: _PUTS, GETINH: ("MQGET",)}

MAX_DELAY_MS = 3_600_000
MAX_SEED = 2**31 - 1
_SEEN_LIMIT = 4096  # distinct (object, user) pairs remembered per verb
_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
_PATTERN = re.compile(r"[^*]{0,256}\*?|\*")


class FaultRuleError(Exception):
    """A malformed rule: ``reason`` is the PCF reason (MQRCCF_PARM_*), ``keyword`` the MQSC keyword at fault."""

    def __init__(self, reason: int, keyword: str, why: str) -> None:
        super().__init__(f"{keyword}: {why}")
        self.reason = reason
        self.keyword = keyword
        self.why = why


class FaultNotFound(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.reason = C.MQRC_UNKNOWN_OBJECT_NAME
        self.name = name


class ConnectionFault(Exception):
    """Raised by a verb whose rule breaks the connection: nothing was done, the transport drops the socket."""

    reason = C.MQRC_CONNECTION_BROKEN


@dataclasses.dataclass(frozen=True, slots=True)
class Fault:
    """What a fired rule asks of the call: its action, the reason it fails with, the reply's delay."""

    rule: str
    action: str
    reason: int = 0
    delay_ms: int = 0


class _Pattern:
    """An MQSC generic name: exact, ``PREFIX*`` or ``*``."""

    __slots__ = ("text", "prefix", "generic")

    def __init__(self, text: str) -> None:
        self.text = text
        self.generic = text.endswith("*")
        self.prefix = text[:-1] if self.generic else text

    def __call__(self, value: str) -> bool:
        return value.startswith(self.prefix) if self.generic else value == self.prefix


@dataclasses.dataclass
class Rule:
    name: str
    verbs: tuple[str, ...]
    action: str
    reason: int = 0
    delay_ms: int = 0
    object: str = "*"
    user: str = "*"
    channel: str = "*"
    appl: str = "*"
    nth: int = 1
    count: int = 0  # 0: every match from the NTH on
    probability: float = 1.0
    seed: int = 0
    matched: int = 0
    fired: int = 0
    order: int = 0
    _random: random.Random = dataclasses.field(default=None, repr=False, compare=False)  # type: ignore[assignment]
    _who: tuple = dataclasses.field(default=(), repr=False, compare=False)  # channel and application patterns
    _user: object = dataclasses.field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)
        self._user = _Pattern(self.user) if self.user != "*" else None
        self._who = tuple((i, _Pattern(p)) for i, p in enumerate((self.channel, self.appl)) if p != "*")

    def attributes(self) -> dict[str, object]:
        """What DISPLAY QMLITE FAULT and the REST API show, keyword -> value."""
        return {"FAULT": self.name, "VERB": verb_names(self), "ACTION": self.action, "REASON": self.reason,
                "DELAY": self.delay_ms, "OBJECT": self.object, "USER": self.user, "CHANNEL": self.channel,
                "APPL": self.appl, "NTH": self.nth, "COUNT": self.count, "PROB": self.probability, "SEED": self.seed,
                "MATCHED": self.matched, "FIRED": self.fired}

    def _fires(self) -> bool:
        self.matched += 1
        if self.matched < self.nth or (self.count and self.fired >= self.count):
            return False
        if self.probability < 1.0 and self._random.random() >= self.probability:
            return False
        self.fired += 1
        return True


class _VerbIndex:
    """The rules of one verb: by exact object name, by generic prefix length then prefix, and the ``*`` ones."""

    __slots__ = ("exact", "prefixes", "anything", "seen")

    def __init__(self) -> None:
        self.exact: dict[str, list[Rule]] = {}
        self.prefixes: dict[int, dict[str, list[Rule]]] = {}
        self.anything: list[Rule] = []
        # (object, user) -> the rules that can match it, in order: a call's lookup is one dict access
        # once its object and user have been seen (the table is rebuilt, and this emptied, on any change).
        self.seen: dict[tuple[str, str], tuple[Rule, ...]] = {}

    def for_call(self, name: str, user: str) -> tuple[Rule, ...]:
        key = (name, user)
        found = self.seen.get(key)
        if found is None:
            found = tuple(rule for rule in self.candidates(name) if not rule._user or rule._user(user))
            if len(self.seen) >= _SEEN_LIMIT:
                self.seen.clear()
            self.seen[key] = found
        return found

    def add(self, rule: Rule) -> None:
        obj = rule.object
        if obj == "*":
            self.anything.append(rule)
        elif obj.endswith("*"):
            prefix = obj[:-1]
            self.prefixes.setdefault(len(prefix), {}).setdefault(prefix, []).append(rule)
        else:
            self.exact.setdefault(obj, []).append(rule)

    def candidates(self, name: str) -> list[Rule]:
        """The rules whose object matches ``name``, in the order they were set."""
        found = list(self.anything)
        exact = self.exact.get(name)
        if exact:
            found += exact
        for length, by_prefix in self.prefixes.items():
            if length <= len(name):
                hit = by_prefix.get(name[:length])
                if hit:
                    found += hit
        if len(found) > 1:
            found.sort(key=_order)
        return found


def _order(rule: Rule) -> int:
    return rule.order


class Faults:
    """The queue manager's fault rules (one per queue manager, ``QueueManager.faults``)."""

    def __init__(self) -> None:
        self._rules: dict[str, Rule] = {}
        self._index: dict[str, _VerbIndex] = {}
        self._order = 0
        # Some rule is set: the verbs' one check before they ask (a plain attribute, read on every call).
        self.armed = False
        self.diskfull = False  # a DISKFULL rule is set: only then does a put work out its persistence
        # Called after rules are removed (delete, clear): the transport releases the replies a removed
        # DELAY rule still holds (server/mqi.py).
        self.on_change: list[Callable[[], None]] = []

    def __len__(self) -> int:
        return len(self._rules)

    def __contains__(self, name: object) -> bool:
        """Whether a rule of this exact name is set."""
        return name in self._rules

    def _removed(self) -> None:
        for callback in self.on_change:
            callback()

    # ---- administration ------------------------------------------------------------------------
    def define(self, name: str, *, verb: str | list[str] | tuple[str, ...] | None = None, action: str | None = None,
               reason: int | None = None, delay: int | None = None, object: str = "*", user: str = "*",
               channel: str = "*", appl: str = "*", nth: int = 1, count: int = 0, probability: float = 1.0,
               seed: int = 0) -> Rule:
        """Set a rule (replacing one of the same name, its counts back to 0); FaultRuleError when malformed."""
        rule = build_rule(name, verb=verb, action=action, reason=reason, delay=delay, object=object, user=user,
                          channel=channel, appl=appl, nth=nth, count=count, probability=probability, seed=seed)
        self._order += 1
        rule.order = self._order
        self._rules.pop(rule.name, None)
        self._rules[rule.name] = rule
        self._reindex()
        log.info("fault_rule_set", rule=rule.name, verb=",".join(rule.verbs), action=rule.action,
                 reason=rule.reason, object=rule.object)
        return rule

    def delete(self, name: str) -> int:
        """Remove the rules ``name`` (exact or generic) names; FaultNotFound when none."""
        pattern = _Pattern(_check_pattern("FAULT", name, upper=True))
        gone = [n for n in self._rules if pattern(n)]
        if not gone:
            raise FaultNotFound(name)
        for n in gone:
            del self._rules[n]
        self._reindex()
        log.info("fault_rule_deleted", rule=name, deleted=len(gone))
        self._removed()
        return len(gone)

    def clear(self) -> int:
        cleared = len(self._rules)
        self._rules.clear()
        self._index = {}
        self.armed = False
        self.diskfull = False
        self._removed()
        return cleared

    def rules(self, name: str = "*") -> list[Rule]:
        """The rules ``name`` (exact or generic) names, in the order they were set."""
        pattern = _Pattern(_check_pattern("FAULT", name, upper=True))
        return [rule for rule in self._rules.values() if pattern(rule.name)]

    def _reindex(self) -> None:
        index: dict[str, _VerbIndex] = {}
        for rule in self._rules.values():
            for verb in rule.verbs:
                index.setdefault(verb, _VerbIndex()).add(rule)
        self._index = index
        self.armed = bool(index)
        self.diskfull = any(rule.action == DISKFULL for rule in self._rules.values())

    # ---- matching ------------------------------------------------------------------------------
    def match(self, verb: str, name: str, user: str, channel: str, appl: str, *,
              persistent: bool = False) -> Fault | None:
        """The fault an MQI call meets, or None (almost always, and cheaply).  Rules are tried in the
        order they were set; the first that fires acts and the rules after it do not see the call."""
        index = self._index.get(verb)
        if index is None:
            return None
        found = index.seen.get((name, user))
        for rule in found if found is not None else index.for_call(name, user):
            if rule.action == DISKFULL and not persistent:
                continue  # a full log refuses only what must be logged
            if rule._who and not _who_matches(rule, channel, appl):
                continue
            if rule._fires():
                return self._fired(rule, verb, name, user, channel, appl)
        return None

    def fire(self, verb: str, name: str, user: str, channel: str, appl: str, *,
             persistent: bool = False) -> Fault | None:
        """Ask the rules about an MQI call before it acts: a failure is raised here as the real one is
        (nothing done), a broken connection as ConnectionFault; a delay comes back for the transport."""
        fault = self.match(verb, name, user, channel, appl, persistent=persistent)
        return None if fault is None else acted(fault)

    def fire_for(self, session, verb: str, name: str, *, persistent: bool = False) -> None:
        """``fire`` for a call on a connection (a ``Session``): a delay is kept on it for the transport.  A
        queue manager's own housekeeping session (``Session.internal``) is passed by."""
        if session.internal:
            return
        fault = self.match(verb, name, session.user, session.channel, session.appl_name, persistent=persistent)
        if fault is not None:
            session.fault = acted(fault)

    def match_command(self, command: int, name: str, user: str) -> Fault | None:
        """The fault a PCF command meets on the command server: a rule naming it, or VERB(PCF) (not Escape)."""
        if not self._index:
            return None
        for verb in (f"{PCF}:{command}", PCF if command != C.MQCMD_ESCAPE else None):
            index = self._index.get(verb) if verb else None
            if index is None:
                continue
            for rule in index.for_call(name, user):
                if rule._fires():
                    return self._fired(rule, C.describe("MQCMD", command), name, user, "", "")
        return None

    @staticmethod
    def _fired(rule: Rule, verb: str, name: str, user: str, channel: str, appl: str) -> Fault:
        fault = Fault(rule.name, rule.action, rule.reason, rule.delay_ms)
        log.info("fault_fired", rule=rule.name, verb=verb, object=name, user=user, channel=channel, appl=appl,
                 action=rule.action, reason=C.describe("MQRC", rule.reason) if rule.reason else None,
                 delay_ms=rule.delay_ms or None, fired=rule.fired)
        return fault


    def match_channel(self, verb: str, channel: str) -> Fault | None:
        """The fault a message channel's step (MCASTART, MCAMSG) meets: its OBJECT and CHANNEL are the
        channel's name; it has no user or application (a rule naming one does not match)."""
        if verb not in self._index:
            return None
        return self.match(verb, channel, "", channel, "")


def acted(fault: Fault) -> Fault:
    """A fired rule: its failure raised as the real one is (nothing done yet), a broken connection as
    ConnectionFault; a delay goes back to the transport."""
    if fault.action == DELAY:
        return fault
    if fault.action == BREAK:
        raise ConnectionFault()
    raise MQIError(fault.reason)


def _who_matches(rule: Rule, channel: str, appl: str) -> bool:
    values = (channel, appl.strip())
    return all(pattern(values[i]) for i, pattern in rule._who)


# ---- validation: one place for MQSC, REST and the Python API --------------------------------------
def _bad(keyword: str, why: str, reason: int = C.MQRCCF_PARM_VALUE_ERROR) -> FaultRuleError:
    return FaultRuleError(reason, keyword, why)


def _check_pattern(keyword: str, text: object, *, upper: bool = False) -> str:
    if not isinstance(text, str) or not text or not _PATTERN.fullmatch(text):
        raise _bad(keyword, "a name, a generic name ending in * or *")
    if keyword == "FAULT" and text != "*" and not _NAME.fullmatch(text.rstrip("*") or "X"):
        raise _bad(keyword, "1 to 48 characters of A-Z a-z 0-9 . _ / %")
    return text.upper() if upper else text


def _int(keyword: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _bad(keyword, f"an integer from {low} to {high}")
    return value


def _verbs(value: object) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not items:
        raise _bad("VERB", "an MQI verb, PCF or a PCF command (MQCMD_...)")
    out = []
    for item in items:
        if not isinstance(item, str):
            raise _bad("VERB", f"{item!r} is not a verb")
        word = item.strip().upper()
        if word in MQI_VERBS or word in CHANNEL_VERBS or word == PCF:
            out.append(word)
            continue
        try:
            command = C.value_of(word) if word.startswith("MQCMD_") else None
        except KeyError:
            command = None
        if not isinstance(command, int):
            raise _bad("VERB", f"{item} is not an MQI verb ({', '.join(MQI_VERBS)}), a channel's step "
                               f"({', '.join(CHANNEL_VERBS)}), PCF or an MQCMD_ name")
        out.append(f"{PCF}:{command}")
    return tuple(dict.fromkeys(out))


def _is_pcf(verb: str) -> bool:
    return verb == PCF or verb.startswith(PCF + ":")


def build_rule(name: object, *, verb=None, action=None, reason=None, delay=None, object="*", user="*",
               channel="*", appl="*", nth=1, count=0, probability=1.0, seed=0) -> Rule:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise _bad("FAULT", "a rule name: 1 to 48 characters of A-Z a-z 0-9 . _ / %")
    if action is None:
        action = FAIL if reason is not None else DELAY if delay is not None else None
        if action is None:
            raise _bad("ACTION", "a rule needs ACTION, REASON or DELAY", C.MQRCCF_PARM_MISSING)
    if not isinstance(action, str) or action.upper() not in ACTIONS:
        raise _bad("ACTION", f"one of {', '.join(ACTIONS)}")
    action = action.upper()
    if verb is None:
        if action not in DEFAULT_VERBS:
            raise _bad("VERB", f"ACTION({action}) needs VERB", C.MQRCCF_PARM_MISSING)
        verbs = DEFAULT_VERBS[action]
    else:
        verbs = _verbs(verb)
    allowed = ACTION_VERBS[action]
    for v in verbs:
        if allowed is not None and v not in allowed and not (_is_pcf(v) and PCF in allowed):
            raise _bad("VERB", f"ACTION({action}) does not apply to {_verb_text(v)}", C.MQRCCF_PARM_CONFLICT)
    if action == FAIL and MCAMSG in verbs:  # a message is sent or the channel breaks: nothing fails alone
        raise _bad("VERB", "ACTION(FAIL) does not apply to MCAMSG (BREAK or DELAY it)", C.MQRCCF_PARM_CONFLICT)
    if action == FAIL:
        if reason is None:
            raise _bad("REASON", "ACTION(FAIL) needs REASON", C.MQRCCF_PARM_MISSING)
        reason = _int("REASON", reason, 1, 999_999_999)
        family = "MQRCCF" if reason >= 3000 and C.describe("MQRCCF", reason) != str(reason) else "MQRC"
        if C.describe(family, reason) == str(reason):
            raise _bad("REASON", f"{reason} is not an IBM MQ reason code")
    elif reason is not None:
        raise _bad("REASON", f"ACTION({action}) carries its own reason", C.MQRCCF_PARM_CONFLICT)
    else:
        reason = ACTION_REASON.get(action, 0)
    if action == DELAY:
        if delay is None:
            raise _bad("DELAY", "ACTION(DELAY) needs DELAY", C.MQRCCF_PARM_MISSING)
        delay = _int("DELAY", delay, 1, MAX_DELAY_MS)
    elif delay is not None:
        raise _bad("DELAY", f"ACTION({action}) takes no DELAY", C.MQRCCF_PARM_CONFLICT)
    if any(_is_pcf(v) for v in verbs):
        if any(v in CHANNEL_VERBS for v in verbs):
            raise _bad("VERB", "PCF commands and a channel's steps in one rule", C.MQRCCF_PARM_CONFLICT)
        if channel != "*" or appl != "*":
            raise _bad("CHANNEL" if channel != "*" else "APPL", "a PCF command has no channel or application",
                       C.MQRCCF_PARM_CONFLICT)
        if not all(_is_pcf(v) for v in verbs):
            raise _bad("VERB", "MQI verbs and PCF commands in one rule", C.MQRCCF_PARM_CONFLICT)
    if isinstance(probability, bool) or not isinstance(probability, (int, float)) or not 0 < probability <= 1:
        raise _bad("PROB", "a probability greater than 0 and at most 1")
    return Rule(name=name.upper(), verbs=verbs, action=action, reason=reason, delay_ms=delay or 0,
                object=_check_pattern("OBJECT", object), user=_check_pattern("USER", user),
                channel=_check_pattern("CHANNEL", channel), appl=_check_pattern("APPL", appl),
                nth=_int("NTH", nth, 1, MAX_SEED), count=_int("COUNT", count, 0, MAX_SEED),
                probability=float(probability), seed=_int("SEED", seed, 0, MAX_SEED))


def _verb_text(verb: str) -> str:
    if verb.startswith(PCF + ":"):
        return C.describe("MQCMD", int(verb[len(PCF) + 1:]))
    return verb


def verb_names(rule: Rule) -> list[str]:
    """The rule's verbs as MQSC shows them (MQCMD_ names for PCF commands)."""
    return [_verb_text(v) for v in rule.verbs]
