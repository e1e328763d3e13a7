"""qmlite.pcf: the MQ wire vocabulary, sans-IO and standard library only.

Bytes in, typed values out, and back: constants, PCF structures, MQI structures and FAP segments.
Nothing here touches a socket, a clock or a file; every decoder is strict and total, raising only
:class:`~qmlite.pcf.errors.CodecError`.
"""

from .errors import CodecError

__all__ = ["CodecError"]
