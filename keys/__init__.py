"""Key repositories and the test PKI: the TLS code both ends share, a leaf beside ``pcf/`` (docs/architecture.md).

* ``paths.py``: which file a key-repository name (SSLKEYR, MQSCO KeyRepository, MQSSLKEYR) means, and the
  error a repository that cannot be used raises -- no ``cryptography``, so a queue manager starts without it;
* ``repository.py``: reading PKCS#12, PEM and IBM's container layout into an ``ssl`` context;
* ``testpki.py``: ``qmlite tls init``'s CA, queue-manager and client certificates.
* ``credentials.py``: the developer container's users and where their passwords come from (secrets files,
  MQ_ADMIN_PASSWORD), read by the server's settings and by the local control commands and samples.

``server/tls.py``, ``client/tls.py``, the pytest plugin and the command line import these; they import
only ``qmlite.pcf`` of qmlite, and ``cryptography``.  Nothing here is imported when the package is: import
the module you need (decisions ST6, KR1: no start loads ``cryptography``).
"""
