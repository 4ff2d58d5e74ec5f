"""The boot's word on an update, run at each boot after an install.

After an install the next boot is a try of the new slot. On that boot this check waits for the
new system to prove itself — the kiosk's service active (it tells systemd only once its first frame
is drawn), the database opened with ``integrity_check`` ok, the result pages answering, and the
sync worker connected where the kiosk is in a league — and then commits the slot. When it does not
in time, the slot is marked bad and the machine restarts into the old one. A try that never gets
this far (a kiosk that hangs the machine, a power cut) leaves the slot's one try spent, and the
boot loader starts the old slot by itself; that boot finds the update unproved and says so:
"rolled back from X".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import replace

from kiosk.updates import rauc
from kiosk.updates.state import UpdateState
from shared.update_states import COMMITTED, DOWNLOADED, INSTALLED, INSTALLING, ROLLED_BACK, TRYING

log = logging.getLogger("clabber.update")

Probe = Callable[[], str | None]  # None when this part is well, else what is wrong, in words
PROVE_WITHIN = 300.0  # seconds the new system has to prove itself
UNPROVED = "it did not prove itself at its first start (it did not start, it hung, or the power went)"


def check(
    state: UpdateState,
    status: rauc.Status,
    running: str,
    probes: Mapping[str, Probe],
    write: Callable[[UpdateState], UpdateState],
    restart: Callable[[], None],
    within: float = PROVE_WITHIN,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> UpdateState:
    """What this boot makes of the update: committed, rolled back, or nothing to do."""
    booted = status.slot(status.booted)
    state = replace(state, running=running, slot=status.booted)
    if state.state in (INSTALLING, INSTALLED, TRYING) and state.previous == status.booted:
        if state.state == INSTALLING:  # the power went while the slot was written: written again
            return write(state.to(DOWNLOADED, previous=state.previous, why="the power went while it was written"))
        rauc.mark_active()  # the old slot boots from now on; the failed one is tried no more
        # The try's own word on what failed, when it had its say; else (the power went, it hung
        # before its check, it never started) it did not prove itself. Never the updater's last
        # note on its way there ("restarting into it").
        reason = state.why if state.state == TRYING and state.why else UNPROVED
        log.warning("update: rolled back from version %s: %s", state.version, reason)
        return write(state.to(ROLLED_BACK, why=reason))
    if booted is None or booted.good:
        # The boot loader took one of this slot's boots to start it: a system already kept gets
        # them back at every start, or a table switched on every evening would run out of them.
        if booted is not None:
            rauc.mark_good()
        return state if state.state != TRYING else write(state.to(COMMITTED, version=running))
    # This boot is the new slot's one try.
    trying = write(state.to(TRYING, version=running))
    deadline = clock() + within
    while True:
        wrong = [f"{name}: {why}" for name, probe in probes.items() if (why := probe()) is not None]
        if not wrong:
            rauc.mark_good()
            log.info("update: version %s proved itself and is kept", running)
            return write(trying.to(COMMITTED, version=running))
        if clock() >= deadline:
            why = "; ".join(wrong)
            log.warning("update: version %s did not prove itself (%s): back to the old one", running, why)
            write(replace(trying, why=f"at its first start, {why}"))
            rauc.mark_bad()
            restart()
            return replace(trying, why=f"at its first start, {why}")
        sleep(2.0)
