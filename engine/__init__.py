"""The rules of Clabber: pure values and functions, no I/O.

The modules, from the ground up: ``cards`` and ``seats`` (names and order), ``rules`` (the
variants), ``play`` (what may be played, who wins a trick), ``melds``, ``bidding``, ``hand``
(a hand as events), ``scoring``, ``game`` (the sheet) and ``record`` (the JSON records).
"""

from engine.errors import EntryError, IllegalEntryError, InvalidRecordError, Problem

__all__ = ["EntryError", "IllegalEntryError", "InvalidRecordError", "Problem"]
